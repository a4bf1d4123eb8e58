#pragma once
// `ipybox sdk`: one code executor for the Python SDK (ipybox_native), configured by these flags
// and driven over JSON-RPC on stdio (ipybox/sdk_server.hpp).
#include "host_context.hpp"
#include "server_flags.hpp"

namespace ipybox::cli {

struct sdk_options {
    kernel_flags kernel;
    server_flags servers;
    std::optional<std::string> images_directory;
    bool restore_working_directory = false;
    bool no_spare_kernel = false;
    bool no_tool_call_approval = false;
    bool approve_shell_commands = false;
    bool require_shell_escape = false;
    std::optional<double> approval_timeout_seconds;
    std::optional<double> mcp_connect_timeout_seconds;
    std::optional<double> start_timeout_seconds;
    std::optional<int> parent_pid;
};

void setup_sdk(CLI::App& app, sdk_options& options);
int run_sdk(const sdk_options& options, const process::environment_map& environment);

}  // namespace ipybox::cli
