#pragma once
// The tool server's HTTP semantics, without sockets: request in, response out.
//
//   POST /run  {"server_name", "tool_name", "tool_args"}  with  Authorization: Bearer <token>
//     -> 200 {"result": {...}}  or  {"error": {"type", "message"}}   (401 without the token,
//        400 for a malformed body, 404/405 for other paths and methods)
//   POST /shell {"tool_name": "shell" | "shell_magic", "tool_args": {"cmd": str, ...}}
//     -> 200 {"approved": true}  or  {"error": {"type", "message"}}   (404 when this session does
//        not approve shell commands). Asks the shell gate about server "ipybox", nothing runs here:
//        the kernel runs the command itself once approved.
//   GET /status -> 200 {"status": "ok"}  (also token-checked)
//
// Order of checks: token, then body shape, then "is the server registered", then the approval
// gate, and only then the tool. Kernel code can name a server and a tool, never a command, URL,
// header or environment (ARCHITECTURE.md, security property 1).
#include <string>

#include "ipybox/approval/gate.hpp"
#include "ipybox/toolserver/tool_invoker.hpp"

namespace ipybox::toolserver {

struct http_request {
    std::string method;
    std::string target;
    std::string authorization;  // the Authorization header, verbatim
    std::string body;
};

struct http_response {
    int status = 200;
    std::string body;  // JSON text
};

struct route_context {
    std::string token;
    approval::gate& gate;
    tool_invoker& invoker;
    approval::gate* shell_gate = nullptr;  // null: shell-command approval is off
};

// The server name of shell-command approval requests; no MCP server may be registered under it.
inline constexpr const char* shell_server_name = "ipybox";

http_response handle_request(const http_request& request, const route_context& context);

// Constant-time comparison of a presented bearer header against the expected token.
bool token_matches(std::string_view authorization_header, std::string_view token);

}  // namespace ipybox::toolserver
