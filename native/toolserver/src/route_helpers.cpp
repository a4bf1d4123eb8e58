#include "detail/route_helpers.hpp"

#include "ipybox/core/untrusted_text.hpp"

namespace ipybox::toolserver::detail {

using nlohmann::json;

http_response error_response(int status, const char* type, const std::string& message) {
    return {status, json{{"error", {{"type", type}, {"message", message}}}}.dump(
                        -1, ' ', false, json::error_handler_t::replace)};
}

http_response json_response(const json& document) {
    return {200, document.dump(-1, ' ', false, json::error_handler_t::replace)};
}

std::variant<json, http_response> parse_object(const std::string& body,
                                               const core::json_limits& limits) {
    try {
        auto document = core::decode_json(body, limits);
        if (document.is_object()) return document;
        return error_response(400, error_type::bad_request,
                              "the request body is not a JSON object");
    } catch (const core::json_decode_error& e) {
        return error_response(400, error_type::bad_request,
                              std::string("the request body was refused: ") + e.what());
    }
}

std::string subject_of(const approval::request& what) {
    if (const auto* call = std::get_if<approval::tool_call>(&what)) {
        return core::render_untrusted(call->server_name) + "." +
               core::render_untrusted(call->tool_name);
    }
    if (const auto* shell = std::get_if<approval::shell_command>(&what)) {
        return shell->kind == approval::shell_command::form::line ? "the shell command"
                                                                  : "the shell cell";
    }
    if (const auto* needs = std::get_if<approval::add_dependencies>(&what)) {
        return "the dependencies of " + core::render_untrusted(needs->action, {120});
    }
    const auto& save = std::get<approval::save_action>(what);
    return "the save of gentools." + core::render_untrusted(save.category, {80}) + "." +
           core::render_untrusted(save.name, {80});
}

std::optional<http_response> refusal(const std::string& subject,
                                     const approval::decision& decision) {
    const auto suffix = decision.reason.empty() ? std::string() : ": " + decision.reason;
    const auto shown = "Approval request for " + subject;
    switch (decision.outcome) {
        case approval::verdict::approved:
            return std::nullopt;
        case approval::verdict::rejected:
            return error_response(200, error_type::rejected, shown + " rejected" + suffix);
        case approval::verdict::timed_out:
            return error_response(200, error_type::timeout, shown + " expired" + suffix);
    }
    return std::nullopt;
}

void once_responder::send(http_response response) {
    responder done;
    {
        std::lock_guard lock(mutex_);
        done = std::exchange(done_, nullptr);
    }
    if (done) done(std::move(response));
}

}  // namespace ipybox::toolserver::detail
