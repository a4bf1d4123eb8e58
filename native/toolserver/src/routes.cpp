#include "ipybox/toolserver/routes.hpp"

#include <algorithm>
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

http_response handle_shell(const http_request& request, const route_context& context) {
    if (!context.shell_gate) {
        return error_response(404, error_type::bad_request,
                              "shell-command approval is not enabled in this ipybox session");
    }
    auto parsed = parse_object(request.body, context.json_limits);
    if (auto* response = std::get_if<http_response>(&parsed)) return *response;
    auto& body = std::get<json>(parsed);
    const auto kind = body.value("tool_name", json()).is_string()
                          ? body["tool_name"].get<std::string>()
                          : std::string();
    if (kind != "shell" && kind != "shell_magic") {
        return error_response(400, error_type::bad_request,
                              "tool_name must be \"shell\" or \"shell_magic\"");
    }
    approval::tool_call call{shell_server_name, kind, take(body, "tool_args", json())};
    const auto& args = call.arguments;
    const bool well_formed =
        args.is_object() && args.contains("cmd") && args["cmd"].is_string() &&
        std::all_of(args.begin(), args.end(), [](const json& value) { return value.is_string(); });
    if (!well_formed) {
        return error_response(400, error_type::bad_request,
                              "tool_args must be an object of strings with a field cmd");
    }
    if (auto refused = refusal(call, context.shell_gate->decide(call))) return *refused;
    return json_response({{"approved", true}});
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

http_response handle_request(const http_request& request, const route_context& context) {
    if (!token_matches(request.authorization, context.token)) {
        core::logger("toolserver")
            ->warn("refused a {} {} without the session token", request.method, request.target);
        return error_response(401, error_type::unauthorized,
                              "the tool server needs this session's token");
    }
    if (request.target == "/status") {
        if (request.method != "GET") return error_response(405, error_type::bad_request, "use GET");
        return {200, R"({"status":"ok"})"};
    }
    if (request.target != "/run" && request.target != "/shell" && request.target != "/gentools") {
        return error_response(404, error_type::bad_request, "no such endpoint: " + request.target);
    }
    if (request.method != "POST") return error_response(405, error_type::bad_request, "use POST");
    if (request.target == "/shell") return handle_shell(request, context);
    if (request.target == "/gentools") return handle_gentools(request, context);

    auto parsed = parse_object(request.body, context.json_limits);
    if (auto* response = std::get_if<http_response>(&parsed)) return *response;
    auto& body = std::get<json>(parsed);
    if (!body.contains("server_name") || !body["server_name"].is_string() ||
        !body.contains("tool_name") || !body["tool_name"].is_string()) {
        return error_response(400, error_type::bad_request,
                              "the body needs string fields server_name and tool_name");
    }
    approval::tool_call call{body["server_name"].get<std::string>(),
                             body["tool_name"].get<std::string>(),
                             take(body, "tool_args", json::object())};
    if (!call.arguments.is_object()) {
        return error_response(400, error_type::bad_request, "tool_args must be a JSON object");
    }
    if (!context.invoker.knows_server(call.server_name)) {
        return error_response(200, error_type::unknown_server,
                              "no MCP server named " +
                                  core::quote_untrusted(call.server_name, 200) +
                                  " is registered with this ipybox session");
    }
    if (auto refused = refusal(call, context.gate.decide(call))) return *refused;
    tool_outcome outcome;
    try {
        outcome = context.invoker.invoke(call);
    } catch (const std::exception& e) {
        outcome = tool_outcome::failure(error_type::server_error, e.what());
    }
    if (outcome.result) return json_response({{"result", *outcome.result}});
    return error_response(200, outcome.error_type.c_str(), outcome.error_message);
}

}  // namespace ipybox::toolserver
