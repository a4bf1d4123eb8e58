#pragma once
// How `ipybox mcp` meets its clients: the tools of server_tool_table() put on a session, each
// call routed to the kernel it is for (kernel_handles.hpp) and run on that kernel's line, or on
// the server's registration threads; over HTTP also the tools of handle_tool_table(). The one
// session over stdio or the many over HTTP (a session per 2026-07-28 request, one per 2025-11-25
// client) all share one kernel_handles. Runs on the server's loop.
#include <memory>

#include "ipybox/core/work_pool.hpp"
#include "ipybox/mcp/session/server_session.hpp"
#include "kernel_handles.hpp"

namespace ipybox::app {

// Identity and instructions of every session of ours; `on_closed` left for the caller.
mcp::session::server_options server_session_options();

// Registers the tools on `session` for calls by `who`: with `with_handles` the handle tools too,
// and an optional kernel_id parameter on each tool of a kernel. `kernels` and `server_work` (the
// threads of work that waits on MCP servers, mcp_server.cpp) must outlive the session's calls.
void add_server_tools(mcp::session::server_session& session, kernel_handles& kernels,
                      core::work_pool& server_work, const client_identity& who, bool with_handles);

}  // namespace ipybox::app
