#pragma once
// The tool server's HTTP semantics, without sockets: request in, response out.
//
//   POST /run  {"server_name", "tool_name", "tool_args"}  with  Authorization: Bearer <token>
//     -> 200 {"result": {...}}  or  {"error": {"type", "message"}}   (401 without the token,
//        400 for a malformed body or one over route_context::json_limits, 404/405 for other
//        paths and methods)
//   POST /shell {"tool_name": "shell" | "shell_magic",
//                "tool_args": {"cmd": str, "interpreter"?: str (shell_magic only)}}
//     -> 200 {"approved": true}  or  {"error": {"type", "message"}}   (404 when this session does
//        not approve shell commands). Asks the gate about an approval::shell_command; nothing
//        runs here: the kernel runs the command itself once approved.
//   POST /gentools {"category", "name", "files": {"__init__.py", "api.py", "impl.py": str},
//                   "category_init"?: str, "overwrite"?: bool}
//     -> 200 {"package": "<user library>/<category>/<name>"}  or  {"error": {"type", "message"}}
//        (404 when this session has no library writer, 400 for a bad name, file set or size).
//        Saves a code action into the user's library for a kernel that may not write it (under
//        --sandbox). Asks the gate about an approval::save_action holding every file's text,
//        then the library_writer writes exactly that (library_writer.hpp). Error types
//        "exists" (a file of the action exists and overwrite is false) and "unsafe_path" (a link
//        or a foreign file on the way) come from the writer.
//   POST /dependencies {"action": str, "servers": {name: params}, "packages": [{"spec": str,
//                       "for_user": bool}]}
//     -> 200 {"report": str}  or  {"error": {"type", "message"}}   (404 when this session has no
//        dependency adder, 400 for a bad shape: dependency_adder.hpp). Asks the gate about an
//        approval::add_dependencies, then the adder registers and installs exactly that.
//   GET /status -> 200 {"status": "ok"}  (also token-checked)
//
// Order of checks: token, then body shape, then "is the server registered", then the approval
// gate, and only then the tool. Kernel code can name a server and a tool, never a command, URL,
// header or environment (ARCHITECTURE.md, security property 1).
//
// Asynchronous: an answer may wait for a person (the gate) and for an MCP server (the invoker),
// so handle_request() returns at once and the answer comes through a callback.
#include <functional>
#include <string>

#include "ipybox/approval/gate.hpp"
#include "ipybox/core/json_decode.hpp"
#include "ipybox/toolserver/dependency_adder.hpp"
#include "ipybox/toolserver/library_writer.hpp"
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
    approval::gate& gate;  // decides every request: tool calls, shell commands, saves
    tool_invoker& invoker;
    bool shell_commands = false;               // false: POST /shell answers 404
    library_writer* library = nullptr;         // null: POST /gentools is off
    dependency_adder* dependencies = nullptr;  // null: POST /dependencies is off
    // Every body is decoded with these (core/json_decode.hpp); over them the answer is 400.
    core::json_limits json_limits = {};
};

using responder = std::function<void(http_response)>;

// Answers `request` through `done`, exactly once: before handle_request() returns when nothing
// needs waiting for, else later from the thread that decided or completed the call. `context`
// must stay valid until then (the tool server's responder keeps it alive). Never throws: a
// failure of ipybox's own is answered 500.
void handle_request(http_request request, const route_context& context, responder done);

// Constant-time comparison of a presented bearer header against the expected token.
bool token_matches(std::string_view authorization_header, std::string_view token);

}  // namespace ipybox::toolserver
