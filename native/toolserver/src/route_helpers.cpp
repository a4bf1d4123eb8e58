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

std::optional<http_response> refusal(const approval::tool_call& call,
                                     const approval::decision& decision) {
    const auto suffix = decision.reason.empty() ? std::string() : ": " + decision.reason;
    // The names came from kernel code (the tool's as the server spelled it): escaped, so that a
    // line break or an escape sequence in them cannot reach a terminal through the error.
    const auto subject = "Approval request for " + core::render_untrusted(call.server_name) + "." +
                         core::render_untrusted(call.tool_name);
    switch (decision.outcome) {
        case approval::verdict::approved:
            return std::nullopt;
        case approval::verdict::rejected:
            return error_response(200, error_type::rejected, subject + " rejected" + suffix);
        case approval::verdict::timed_out:
            return error_response(200, error_type::timeout, subject + " expired" + suffix);
    }
    return std::nullopt;
}

}  // namespace ipybox::toolserver::detail
