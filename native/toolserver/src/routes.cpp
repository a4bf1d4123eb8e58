#include "ipybox/toolserver/routes.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <variant>

#include "detail/route_helpers.hpp"
#include "ipybox/core/log.hpp"
#include "ipybox/core/untrusted_text.hpp"

namespace ipybox::toolserver {
namespace {

using detail::error_response;
using detail::json_response;
using detail::parse_object;
using detail::refusal;
using nlohmann::json;

// Moves the member `key` out of `object` (or gives `fallback`): the arguments can be most of a
// large body, and the budget of a request counts one parsed copy of it (request_budget.hpp).
json take(json& object, const char* key, json fallback) {
    const auto it = object.find(key);
    return it == object.end() ? std::move(fallback) : std::move(*it);
}

// The shell command of a POST /shell body, or the text saying what is wrong with it.
std::variant<approval::shell_command, std::string> read_shell_command(json& body) {
    const auto kind = body.value("tool_name", json());
    if (kind != approval::shell_line_name && kind != approval::shell_cell_magic_name) {
        return std::string("tool_name must be \"shell\" or \"shell_magic\"");
    }
    approval::shell_command command;
    command.kind = kind == approval::shell_line_name ? approval::shell_command::form::line
                                                     : approval::shell_command::form::cell_magic;
    const auto args = take(body, "tool_args", json());
    // Exactly the fields the question shows: anything else would be approved unseen.
    const bool magic = command.kind == approval::shell_command::form::cell_magic;
    const bool well_formed =
        args.is_object() && args.contains("cmd") && args["cmd"].is_string() &&
        std::all_of(args.items().begin(), args.items().end(), [magic](const auto& item) {
            return item.value().is_string() &&
                   (item.key() == "cmd" || (magic && item.key() == "interpreter"));
        });
    if (!well_formed) {
        return std::string(magic ? "tool_args must be {\"cmd\": str, \"interpreter\": str}"
                                 : "tool_args must be {\"cmd\": str}");
    }
    command.command = args["cmd"].get<std::string>();
    command.interpreter = args.value("interpreter", std::string());
    return command;
}

void handle_shell(http_request request, const route_context& context, responder done) {
    if (!context.shell_commands) {
        done(error_response(404, error_type::bad_request,
                            "shell-command approval is not enabled in this ipybox session"));
        return;
    }
    auto parsed = parse_object(request.body, context.json_limits);
    request = {};
    if (auto* response = std::get_if<http_response>(&parsed)) return done(std::move(*response));
    auto read = read_shell_command(std::get<json>(parsed));
    if (auto* problem = std::get_if<std::string>(&read)) {
        return done(error_response(400, error_type::bad_request, *problem));
    }
    const approval::request what = std::get<approval::shell_command>(std::move(read));
    const auto subject = detail::subject_of(what);
    context.gate.decide(what,
                        [subject, done = std::move(done)](const approval::decision& decision) {
                            if (auto refused = refusal(subject, decision))
                                return done(std::move(*refused));
                            done(json_response({{"approved", true}}));
                        });
}

void handle_run(http_request request, const route_context& context, responder done) {
    auto parsed = parse_object(request.body, context.json_limits);
    request = {};
    if (auto* response = std::get_if<http_response>(&parsed)) return done(std::move(*response));
    auto& body = std::get<json>(parsed);
    if (!body.contains("server_name") || !body["server_name"].is_string() ||
        !body.contains("tool_name") || !body["tool_name"].is_string()) {
        return done(error_response(400, error_type::bad_request,
                                   "the body needs string fields server_name and tool_name"));
    }
    approval::tool_call call{body["server_name"].get<std::string>(),
                             body["tool_name"].get<std::string>(),
                             take(body, "tool_args", json::object())};
    if (!call.arguments.is_object()) {
        return done(
            error_response(400, error_type::bad_request, "tool_args must be a JSON object"));
    }
    if (!context.invoker.knows_server(call.server_name)) {
        return done(error_response(200, error_type::unknown_server,
                                   "no MCP server named " +
                                       core::quote_untrusted(call.server_name, 200) +
                                       " is registered with this ipybox session"));
    }
    // The call travels on in a shared copy: the gate may answer on another thread.
    auto shared = std::make_shared<const approval::tool_call>(std::move(call));
    context.gate.decide(*shared, [&context, shared, done = std::move(done)](
                                     const approval::decision& decision) mutable {
        if (auto refused = refusal(detail::subject_of(*shared), decision)) {
            return done(std::move(*refused));
        }
        // One answer only: if invoke() throws after it has taken `done`, nothing is sent twice.
        auto answer = std::make_shared<detail::once_responder>(std::move(done));
        try {
            context.invoker.invoke(*shared, [answer](tool_outcome outcome) {
                if (outcome.result)
                    return answer->send(json_response({{"result", *outcome.result}}));
                answer->send(
                    error_response(200, outcome.error_type.c_str(), outcome.error_message));
            });
        } catch (const std::exception& e) {
            answer->send(error_response(200, error_type::server_error, e.what()));
        }
    });
}

}  // namespace

bool token_matches(std::string_view authorization_header, std::string_view token) {
    constexpr std::string_view scheme = "Bearer ";
    if (token.empty() || authorization_header.substr(0, scheme.size()) != scheme) return false;
    const auto presented = authorization_header.substr(scheme.size());
    if (presented.size() != token.size()) return false;
    unsigned char difference = 0;
    for (std::size_t i = 0; i < token.size(); ++i) {
        difference |= static_cast<unsigned char>(presented[i] ^ token[i]);
    }
    return difference == 0;
}

void handle_request(http_request request, const route_context& context, responder given) {
    auto done = std::make_shared<detail::once_responder>(std::move(given));
    const auto reply = [done](http_response response) { done->send(std::move(response)); };
    try {
        if (!token_matches(request.authorization, context.token)) {
            core::logger("toolserver")
                ->warn("refused a {} {} without the session token", request.method, request.target);
            return reply(error_response(401, error_type::unauthorized,
                                        "the tool server needs this session's token"));
        }
        if (request.target == "/status") {
            if (request.method != "GET") {
                return reply(error_response(405, error_type::bad_request, "use GET"));
            }
            return reply({200, R"({"status":"ok"})"});
        }
        const bool known = request.target == "/run" || request.target == "/shell" ||
                           request.target == "/gentools" || request.target == "/dependencies";
        if (!known) {
            return reply(error_response(404, error_type::bad_request,
                                        "no such endpoint: " + request.target));
        }
        if (request.method != "POST") {
            return reply(error_response(405, error_type::bad_request, "use POST"));
        }
        const auto target = request.target;
        if (target == "/shell") return handle_shell(std::move(request), context, reply);
        if (target == "/gentools") return handle_gentools(std::move(request), context, reply);
        if (target == "/dependencies") {
            return handle_dependencies(std::move(request), context, reply);
        }
        handle_run(std::move(request), context, reply);
    } catch (const std::exception& e) {
        core::logger("toolserver")->error("tool server request failed: {}", e.what());
        reply({500, R"({"error":{"type":"server_error","message":"internal error"}})"});
    }
}

}  // namespace ipybox::toolserver
