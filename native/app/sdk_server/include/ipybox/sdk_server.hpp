#pragma once
// `ipybox sdk`: one code executor served to the Python SDK (the package ipybox_native, which
// offers the reference's CodeExecutor API) over JSON-RPC 2.0, one message per line on stdin and
// stdout. The executor's configuration comes from the command line; the protocol carries the
// operations. It is private to the SDK and the binary of the same version.
//
// Requests (client -> ipybox), each answered once:
//   start {}                         -> {"python", "kernel_pid"}; error: the start failure
//   execute {"execution": int, "code": str, "timeout": seconds|null}
//        -> {"text", "images": [path], "cancelled", "notices": [str]}
//        or error -32000 with data {"kind": "exception"|"timeout"|"kernel_died"|"start_failed",
//                                    "ename", "evalue", "output", "state_kept"}
//      and before that answer, notifications (ipybox -> client) naming the execution:
//        execution/chunk {"execution", "stream", "text", "image": path|null}
//        execution/approval {"execution", "approval": int, "kind", "server_name", "tool_name",
//                            "tool_args", "python_name", "interpreter", "needs_a_person",
//                            "question"}
//          kind: tool_call, shell_command (server_name "ipybox", tool_name "shell" or
//          "shell_magic", tool_args {"cmd"}), save_action or add_dependencies (server_name
//          "ipybox", tool_name "save_gentool" / "add_dependencies")
//   decide {"approval": int, "accept": bool, "reason": str} -> {"decided": bool} (false: the
//        request had ended or was decided already)
//   cancel {}                        -> {}: the running execution ends as cancelled
//   reset {}                         -> {}
//   register_mcp_server {"server_name", "server_params"} -> {} (records it; generates nothing)
// Executions run one at a time in arrival order (the executor's queue); start, reset and
// registrations run in arrival order on one worker, so they never hold the loop.
//
// Lifetime: ipybox ends (every kernel with it) when stdin reaches its end or on SIGTERM; a
// running execution is cancelled first. The exit status is 0 after an orderly end.
#include "ipybox/code_executor.hpp"

namespace ipybox {

// Serves `options` on stdin/stdout until the client goes away; returns the exit status.
// `options.io_context` is replaced by the server's own loop.
int run_sdk_server(code_executor_options options);

}  // namespace ipybox
