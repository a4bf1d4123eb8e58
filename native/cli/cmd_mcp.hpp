#pragma once
// `ipybox mcp`: serve MCP over stdio, or over HTTP with --transport http (see
// ipybox/mcp_server.hpp). `ipybox --workspace DIR` with
// no subcommand means the same, for configurations written for the reference.
#include "host_context.hpp"

namespace ipybox::cli {

struct mcp_command_options {
    std::string workspace = ".";
    std::optional<std::string> python;
    bool sandbox = false;
    std::optional<std::string> sandbox_config;
    std::vector<std::string> guessable_secrets;  // --allow-guessable-secret NAME
    std::vector<std::string> library;
    std::optional<std::string> approval_policy;
    bool approve_shell_commands = false;
    std::string log_level = "info";
    std::string transport = "stdio";
    std::string listen = "127.0.0.1:8000";     // --transport http
    std::vector<std::string> allowed_origins;  // --allow-origin ORIGIN
    std::optional<std::string> auth_token_file;
    double shutdown_grace_seconds = 30;  // --shutdown-grace
    std::size_t max_kernels = 16;        // --max-kernels
    double kernel_ttl_seconds = 1800;    // --kernel-ttl
    double approval_wait_seconds = 600;  // --approval-wait
    limit_flags limits;
};

void setup_mcp(CLI::App& app, mcp_command_options& options);
int run_mcp(const mcp_command_options& options, process::environment_map environment);

}  // namespace ipybox::cli
