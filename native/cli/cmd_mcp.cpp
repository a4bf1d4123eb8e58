#include "cmd_mcp.hpp"

#include <functional>
#include <iostream>
#include <sstream>

#include "ipybox/core/log.hpp"
#include "ipybox/mcp_server.hpp"
#include "server_flags.hpp"

namespace ipybox::cli {
namespace {

// Host-side memory of registered servers, one file per workspace, outside the workspace.
std::filesystem::path registry_file(const process::environment_map& environment,
                                    const std::filesystem::path& workspace) {
    std::filesystem::path base;
    if (const auto it = environment.find("XDG_STATE_HOME");
        it != environment.end() && !it->second.empty()) {
        base = it->second;
    } else if (const auto home = environment.find("HOME"); home != environment.end()) {
        base = std::filesystem::path(home->second) / ".local" / "state";
    } else {
        return {};
    }
    std::stringstream name;
    name << std::hex << std::hash<std::string>{}(workspace.string());
    return base / "ipybox" / "workspaces" / (name.str() + ".json");
}

}  // namespace

void setup_mcp(CLI::App& app, mcp_command_options& options) {
    auto* mcp = app.add_subcommand("mcp", "Serve the ipybox MCP server on stdio (for Claude Code)");
    mcp->add_option("--workspace", options.workspace,
                    "Kernel working directory; mcptools/, images/ and .env live here")
        ->capture_default_str();
    mcp->add_option("--python", options.python, "Python interpreter with ipykernel");
    add_sandbox_flags(*mcp, options.sandbox, options.sandbox_config);
    add_library_flag(*mcp, options.library);
    mcp->add_option("--approval-policy", options.approval_policy,
                    "JSON rules allowing, denying or asking about tool calls by server.tool");
    mcp->add_flag(
        "--approve-shell-commands", options.approve_shell_commands,
        "Put shell commands (!cmd, %%bash, ...) through the approval policy as "
        "ipybox.shell / ipybox.shell_magic; unless a rule matches them, the user is asked");
    mcp->add_option("--log-level", options.log_level, "Log level on stderr")->capture_default_str();
    mcp->add_option("--transport", options.transport, "MCP transport")
        ->check(CLI::IsMember({"stdio"}))
        ->capture_default_str();
}

int run_mcp(const mcp_command_options& options, process::environment_map environment) {
    core::set_log_level(options.log_level);
    mcp_server_options server;
    server.sandbox = sandbox_from_flags(options.sandbox, options.sandbox_config);
    server.workspace =
        std::filesystem::weakly_canonical(std::filesystem::absolute(options.workspace));
    std::filesystem::create_directories(server.workspace);
    if (options.python) server.python = *options.python;
    if (const auto it = environment.find("IPYBOX_PYTHON");
        it != environment.end() && !it->second.empty()) {
        server.python_override = it->second;
    }
    server.host_environment = environment;
    server.runtime_directory = runtime_directory(environment);
    server.registry_file = registry_file(environment, server.workspace);
    server.library_roots = library_roots(options.library, environment);
    if (options.approval_policy) {
        server.approval_policy =
            parse_json_argument("--approval-policy", "@" + *options.approval_policy);
    }
    server.approve_shell_commands = options.approve_shell_commands;
    return run_mcp_server(server);
}

}  // namespace ipybox::cli
