#include "cmd_sdk.hpp"

#include <iostream>

#include "ipybox/sdk_server.hpp"
#include "parent_watch.hpp"

namespace ipybox::cli {
namespace {

std::chrono::milliseconds seconds_flag(double seconds) {
    return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

}  // namespace

void setup_sdk(CLI::App& app, sdk_options& options) {
    auto* sdk = app.add_subcommand(
        "sdk", "Serve one code executor to the Python SDK (ipybox_native) over JSON-RPC on stdio");
    add_kernel_flags(*sdk, options.kernel);
    add_server_flags(*sdk, options.servers);
    sdk->add_option("--images-dir", options.images_directory,
                    "Where images from the code are saved (default: <workspace>/images)");
    sdk->add_flag("--restore-working-dir", options.restore_working_directory,
                  "Change back to the workspace after each cell that left it, saying so");
    sdk->add_flag("--no-tool-call-approval", options.no_tool_call_approval,
                  "Tool calls from the code run without asking the client");
    sdk->add_flag("--approve-shell-commands", options.approve_shell_commands,
                  "Ask the client before shell commands run (!cmd, %%bash, ...)");
    sdk->add_flag("--require-shell-escape", options.require_shell_escape,
                  "Refuse subprocess, os.system, os.exec*, os.spawn* and pty.spawn in the code: "
                  "processes start through approved shell commands (needs "
                  "--approve-shell-commands)");
    sdk->add_option("--approval-timeout", options.approval_timeout_seconds,
                    "Seconds an approval may wait before the call fails (default: no limit)")
        ->check(CLI::PositiveNumber);
    sdk->add_option("--mcp-connect-timeout", options.mcp_connect_timeout_seconds,
                    "Seconds an MCP server may take to start")
        ->check(CLI::PositiveNumber);
    sdk->add_option("--start-timeout", options.start_timeout_seconds,
                    "Seconds a kernel may take to start")
        ->check(CLI::PositiveNumber);
    sdk->add_flag("--no-spare-kernel", options.no_spare_kernel,
                  "Keep no pre-started kernel (reset() then starts one; saves a process)");
    sdk->add_option("--parent-pid", options.parent_pid,
                    "End when this process (the SDK's) ends, not only at the end of stdin");
}

int run_sdk(const sdk_options& options, const process::environment_map& environment) {
    if (options.require_shell_escape && !options.approve_shell_commands) {
        throw CLI::ValidationError("--require-shell-escape", "needs --approve-shell-commands");
    }
    // SIGTERM (an orderly end) when the parent goes, even if something it forked keeps our
    // stdin open.
    if (options.parent_pid && !end_with_parent(*options.parent_pid)) {
        std::cerr << "ipybox sdk: the parent process " << *options.parent_pid
                  << " is gone; exiting\n";
        return exit_ok;
    }
    auto config = executor_options(options.kernel, environment);
    config.mcp_servers = collect_servers(options.servers);
    if (options.images_directory) {
        config.images_directory = std::filesystem::absolute(*options.images_directory);
    }
    config.restore_working_directory = options.restore_working_directory;
    config.keep_spare_kernel = !options.no_spare_kernel;
    config.approve_tool_calls = !options.no_tool_call_approval;
    config.approve_shell_commands = options.approve_shell_commands;
    config.require_shell_escape = options.require_shell_escape;
    if (options.approval_timeout_seconds) {
        config.approval_timeout = seconds_flag(*options.approval_timeout_seconds);
    }
    if (options.mcp_connect_timeout_seconds) {
        config.mcp_connect_timeout = seconds_flag(*options.mcp_connect_timeout_seconds);
    }
    if (options.start_timeout_seconds) {
        config.start_timeout = seconds_flag(*options.start_timeout_seconds);
    }
    return run_sdk_server(std::move(config));
}

}  // namespace ipybox::cli
