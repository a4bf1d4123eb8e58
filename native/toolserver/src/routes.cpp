#include "ipybox/toolserver/routes.hpp"

#include "ipybox/core/log.hpp"

namespace ipybox::toolserver {
namespace {

using nlohmann::json;

http_response error_response(int status, const char* type, const std::string& message) {
    return {status, json{{"error", {{"type", type}, {"message", message}}}}.dump(
                        -1, ' ', false, json::error_handler_t::replace)};
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
        core::logger("toolserver")->warn("refused a {} {} without the session token",
                                         request.method, request.target);
        return error_response(401, error_type::unauthorized,
                              "the tool server needs this session's token");
    }
    if (request.target == "/status") {
        if (request.method != "GET") return error_response(405, error_type::bad_request, "use GET");
        return {200, R"({"status":"ok"})"};
    }
    if (request.target != "/run") {
        return error_response(404, error_type::bad_request, "no such endpoint: " + request.target);
    }
    if (request.method != "POST") return error_response(405, error_type::bad_request, "use POST");

    json body;
    try {
        body = json::parse(request.body);
    } catch (const json::parse_error& e) {
        return error_response(400, error_type::bad_request,
                              std::string("the request body is not JSON: ") + e.what());
    }
    if (!body.is_object() || !body.contains("server_name") || !body["server_name"].is_string() ||
        !body.contains("tool_name") || !body["tool_name"].is_string()) {
        return error_response(400, error_type::bad_request,
                              "the body needs string fields server_name and tool_name");
    }
    approval::tool_call call{body["server_name"].get<std::string>(),
                             body["tool_name"].get<std::string>(),
                             body.value("tool_args", json::object())};
    if (!call.arguments.is_object()) {
        return error_response(400, error_type::bad_request, "tool_args must be a JSON object");
    }
    if (!context.invoker.knows_server(call.server_name)) {
        return error_response(200, error_type::unknown_server,
                              "no MCP server named '" + call.server_name +
                                  "' is registered with this ipybox session");
    }
    const auto decision = context.gate.decide(call);
    if (decision.outcome == approval::verdict::rejected) {
        return error_response(200, error_type::rejected,
                              "Approval request for " + call.server_name + "." + call.tool_name +
                                  " rejected" + (decision.reason.empty() ? "" : ": " + decision.reason));
    }
    if (decision.outcome == approval::verdict::timed_out) {
        return error_response(200, error_type::timeout,
                              "Approval request for " + call.server_name + "." + call.tool_name +
                                  " expired" + (decision.reason.empty() ? "" : ": " + decision.reason));
    }
    tool_outcome outcome;
    try {
        outcome = context.invoker.invoke(call);
    } catch (const std::exception& e) {
        outcome = tool_outcome::failure(error_type::server_error, e.what());
    }
    if (outcome.result) {
        return {200, json{{"result", *outcome.result}}.dump(-1, ' ', false,
                                                          json::error_handler_t::replace)};
    }
    return error_response(200, outcome.error_type.c_str(), outcome.error_message);
}

}  // namespace ipybox::toolserver
