#pragma once
// The tools of `ipybox mcp`, each defined once (server_tool_table.cpp): its name and description
// for the model, its parameters with their types, defaults and bounds, the line of work it runs
// on, its handler and its row in README.md's tool table. The tools/list entry (descriptor_of),
// the argument check with the defaults filled in (checked_arguments) and the docs row (docs_row)
// are all derived from that entry (server_tool_checks.cpp); a unit test holds README.md to the
// rows.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ipybox/mcp/session/server_session.hpp"
#include "ipybox/mcp/session/types.hpp"

namespace ipybox::app {

class server_tools;

enum class parameter_type { string, number, integer, boolean, object };

struct tool_parameter {
    std::string name;
    parameter_type type = parameter_type::string;
    std::string description;  // for the model
    bool required = false;
    nlohmann::json default_value;  // what an absent or null optional argument becomes
    // Bounds of a number and choices of a string: checked, and stated in the schema.
    std::optional<double> minimum;
    std::optional<double> exclusive_minimum;
    std::optional<double> maximum;
    std::vector<std::string> choices;
    // What a wrong value is told it must be ("a positive number of seconds"); derived from the
    // type and bounds when empty.
    std::string expected;
};

// Where a call runs (mcp_server.cpp): on the one line of calls that touch the kernel, in arrival
// order, or on the threads of work that waits on MCP servers.
enum class tool_line { kernel, servers };

// The tools of kernels as handles (handle_tool_table()) are answered by kernel_handles.
enum class handle_action { none, create, list, destroy };

struct server_tool {
    using handler_type = mcp::session::call_tool_result (server_tools::*)(
        const nlohmann::json& arguments, const mcp::session::request_context& context);

    std::string name;
    std::string title;
    std::string description;  // for the model
    std::vector<tool_parameter> parameters;
    nlohmann::json annotations;  // MCP tool annotations; the title is added
    tool_line line = tool_line::kernel;
    handler_type handler = nullptr;  // receives checked_arguments(), never the raw arguments
    handle_action action = handle_action::none;  // instead of a handler
    std::string docs;                            // README.md's "what it does" column
};

// Every tool, in the order tools/list gives them. The entries live as long as the program.
const std::vector<server_tool>& server_tool_table();

// create_kernel, list_kernels, destroy_kernel (HTTP only), in that order.
const std::vector<server_tool>& handle_tool_table();

// The optional "kernel_id" every tool of server_tool_table() takes over HTTP.
tool_parameter kernel_id_parameter();

// The server's instructions in the initialize result.
std::string server_instructions();

// The tools/list entry: input schema built from the parameters.
mcp::session::tool_descriptor descriptor_of(const server_tool& tool);

// The arguments as the handler sees them: every declared parameter present, an absent or null
// optional one set to its default; undeclared keys dropped. Throws detail::argument_error
// (server_tool_support.hpp) naming the first argument that is missing, of the wrong type or out
// of bounds.
nlohmann::json checked_arguments(const server_tool& tool, const nlohmann::json& arguments);

// The tool's row in README.md: "| `name(required, optional=default)` | docs |".
std::string docs_row(const server_tool& tool);

}  // namespace ipybox::app
