#pragma once
// The tools of `ipybox mcp`: names, input schemas and descriptions written for a model.
#include "ipybox/mcp/session/types.hpp"

namespace ipybox::app {

mcp::session::tool_descriptor register_mcp_server_spec();
mcp::session::tool_descriptor execute_ipython_cell_spec();
mcp::session::tool_descriptor install_package_spec();
mcp::session::tool_descriptor reset_spec();
mcp::session::tool_descriptor search_tools_spec();

// The server's instructions in the initialize result.
std::string server_instructions();

}  // namespace ipybox::app
