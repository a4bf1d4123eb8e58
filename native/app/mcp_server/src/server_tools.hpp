#pragma once
// The blocking implementations of `ipybox mcp`'s tools. Each returns an MCP tool result; a
// failure the model can act on (bad arguments, an exception in the code, a timeout) is a result
// with isError, never a JSON-RPC error.
//
// Thread-safety: every method may be called from several worker threads at once; executions are
// serialised by the code executor.
#include <map>
#include <memory>
#include <string>

#include "ipybox/approval/policy.hpp"
#include "ipybox/code_executor.hpp"
#include "ipybox/executor/package_installer.hpp"
#include "ipybox/gentools/server_registry.hpp"
#include "ipybox/mcp/session/server_session.hpp"
#include "ipybox/mcp_server.hpp"
#include "parked_cells.hpp"
#include "server_tool_table.hpp"

namespace ipybox::app {

// Re-reads the saved actions of every gentools root and pins them (`previous`: the modules of a
// server before its regeneration), stores the pins in the registry and returns the flags of the
// actions whose tools changed (gentools_library.hpp). server_library_tools.cpp.
nlohmann::json pin_saved_actions(const mcp_server_options& options, server_registry& registry,
                                 const std::map<std::string, std::string>& previous = {});

class server_tools {
  public:
    // `io` is the server's loop: progress notifications are timed there.
    server_tools(boost::asio::io_context& io, const mcp_server_options& options,
                 code_executor& executor, server_registry& registry, approval::policy policy);

    // Runs one tool of server_tool_table(): checks the arguments against its parameters, calls
    // its handler, and turns any failure into a result with isError; every result is redacted.
    mcp::session::call_tool_result call(const server_tool& tool, const nlohmann::json& arguments,
                                        const mcp::session::request_context& context);

    // The handlers of the table's tools; `arguments` are checked_arguments() (defaults filled).
    // Each may throw: call() makes the failure a tool error.
    //
    // Cancelling the request (notifications/cancelled from the client) abandons the server's
    // start-up and listing; the previous registration, if any, stays.
    mcp::session::call_tool_result register_server(const nlohmann::json& arguments,
                                                   const mcp::session::request_context& context);
    mcp::session::call_tool_result execute_cell(const nlohmann::json& arguments,
                                                const mcp::session::request_context& context);
    mcp::session::call_tool_result install_package(const nlohmann::json& arguments,
                                                   const mcp::session::request_context& context);
    mcp::session::call_tool_result reset(const nlohmann::json& arguments,
                                         const mcp::session::request_context& context);
    // Ranked search over mcptools/, mcpparse/ and the gentools roots (run in the kernel, which
    // keeps the index between calls). server_library_tools.cpp.
    mcp::session::call_tool_result search_tools(const nlohmann::json& arguments,
                                                const mcp::session::request_context& context);

    // Cancels the server work in progress (registrations) and any that starts later, and lets
    // cells waiting for an approval's answer run out: for shutdown, before the threads that run
    // them are joined.
    void stop_server_work(const std::string& reason) {
        stopping_.cancel(reason);
        parked_.abandon(reason);
    }

    // What a saved code action needs, approved by the user (code_executor_options::
    // add_dependencies): each server registered as register_mcp_server does (its modules
    // generated, the registration remembered, saved actions re-pinned), each package installed as
    // install_package does. Runs while the cell that asked waits, so it sends nothing to the
    // kernel. server_dependencies.cpp.
    dependencies_added add_dependencies(const approval::add_dependencies& what);
    // Why `what` cannot be granted in this project, before anyone is asked ("" when it can): a
    // server registered here under one of its names with other parameters (adding never
    // replaces a registration the user made; they re-register it themselves if they want the
    // action's). Checked again by add_dependencies, in case a registration came meanwhile.
    // server_dependencies.cpp.
    std::string dependencies_refusal(const approval::add_dependencies& what) const;

    nlohmann::json update_action_pins(const std::map<std::string, std::string>& previous = {});
    // Tells a running kernel about flagged actions (catalog() and search mark them).
    void send_flags_to_kernel(const nlohmann::json& flags);

  private:
    // pip-installs `spec` for this project or, `for_user`, into the user's site folder.
    install_outcome install_spec(const std::string& spec, bool for_user);
    // Decides by the policy at once, or asks the client of `context` (elicitation, through the
    // request's session) and returns: the answer settles the request when it comes. Never
    // waits. A 2026-07-28 client that declared elicitation cannot be sent a request: then this
    // returns true, and the caller parks the cell and answers input_required (parked_cells.hpp).
    bool decide(approval_request& request, const mcp::session::request_context& context);
    // Runs `stream` to its end and answers with its result, or parks it when an approval must be
    // asked of a 2026-07-28 client (the answer to `arguments`' call is then input_required).
    mcp::session::call_tool_result drive_cell(code_execution_stream stream,
                                              const cell_output_options& output,
                                              const nlohmann::json& arguments,
                                              const mcp::session::request_context& context);
    // The retry of a parked cell: the answer applied, the cell driven on.
    mcp::session::call_tool_result resume_cell(const nlohmann::json& arguments,
                                               const mcp::session::request_context& context);
    // The rules of the policy that cover none of the registered servers' tools, as text for
    // register_mcp_server's result (also logged); empty when none.
    std::string policy_report();
    std::filesystem::path save_full_output(const std::string& text) const;

    boost::asio::io_context& io_;
    const mcp_server_options& options_;
    code_executor& executor_;
    server_registry& registry_;
    approval::policy policy_;
    mcp::jsonrpc::cancellation_source stopping_;
    parked_cells parked_;
};

}  // namespace ipybox::app
