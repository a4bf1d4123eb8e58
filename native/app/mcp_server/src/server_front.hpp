#pragma once
// How `ipybox mcp` meets its clients: the tools of server_tool_table() put on a session, and the
// one session over stdio or the many over HTTP (a session per 2026-07-28 request, one per
// 2025-11-25 client), all sharing one server_tools. Runs on the server's loop.
#include <memory>

#include "ipybox/core/work_pool.hpp"
#include "ipybox/mcp/session/server_session.hpp"
#include "server_tools.hpp"

namespace ipybox::app {

// The lines of work the tools' calls run on (mcp_server.cpp says why there are two).
struct tool_lines {
    core::work_pool& kernel_calls;
    core::work_pool& server_work;
};

// Identity and instructions of every session of ours; `on_closed` left for the caller.
mcp::session::server_options server_session_options();

// Registers every tool of server_tool_table() on `session`, each call offloaded to its line.
// `tools` and the lines must outlive the session's calls.
void add_server_tools(mcp::session::server_session& session, server_tools& tools,
                      const tool_lines& lines);

}  // namespace ipybox::app
