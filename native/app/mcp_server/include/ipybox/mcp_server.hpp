#pragma once
// `ipybox mcp`: the MCP server that Claude Code and other MCP clients talk to, over stdio.
//
// Tools: register_mcp_server, execute_ipython_cell, install_package, reset (the reference's four,
// with the same names and parameters) and search_tools (ranked search over mcptools/, mcpparse/
// and every gentools root). initialize is answered at once; the kernel starts in the
// background and the first execution waits for it. Over stdio one kernel; over HTTP also
// create_kernel, list_kernels and destroy_kernel, and a kernel_id on every tool of a kernel
// (src/kernel_handles.hpp).
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ipybox/code_executor.hpp"
#include "ipybox/mcp_http_listen.hpp"

namespace ipybox {

struct mcp_server_options {
    std::filesystem::path workspace;  // created if missing; the kernel's cwd and import root
    std::optional<std::filesystem::path> python;
    std::optional<std::filesystem::path> python_override;
    // The host's environment. The workspace .env is added to it (variables already set win);
    // KERNEL_ENV_X of the result reaches the kernel as X, the rest only ${VAR} substitution.
    std::map<std::string, std::string> host_environment;
    std::filesystem::path runtime_directory;
    // Where registered servers are remembered between runs (host-side, outside the workspace);
    // empty: not remembered.
    std::filesystem::path registry_file;
    // {"default": ..., "rules": [...]} (see approval/policy.hpp); null: allow everything.
    nlohmann::json approval_policy;
    // Shell commands from kernel code go through the approval policy as ipybox.shell and
    // ipybox.shell_magic; when no rule of the policy matches them, the user is asked.
    bool approve_shell_commands = false;
    std::chrono::milliseconds install_timeout{600000};
    // How long a cell waits for a 2026-07-28 client's answer to an approval (the retry of its
    // input_required result) before the approval is rejected.
    std::chrono::milliseconds approval_wait{600000};
    // Keep a spare kernel (forked from a kernel template) so that reset() is fast; costs the
    // memory of a second kernel and the template. create_kernel's kernels go without unless they
    // ask for it (fast_reset), so that many fit on one machine.
    bool keep_spare_kernel = true;
    // Run the kernel sandboxed (code_executor.hpp). The server checks at start that the sandbox
    // runtime exists and exits with an error if not, rather than run the kernel unsandboxed.
    std::optional<kernel_sandbox> sandbox;
    process::resource_limits limits = process::default_resource_limits();  // code_executor.hpp
    // User-level gentools roots after the project's gentools/ (code_executor_options).
    std::vector<std::filesystem::path> library_roots;
    // Where the registrations of a kernel made by create_kernel in another folder are remembered
    // (like registry_file for the workspace); unset: not remembered.
    std::function<std::filesystem::path(const std::filesystem::path& workspace)> registry_file_for;
    // Without `sandbox`: how create_kernel(sandbox=true) sandboxes a kernel (the sandbox runtime
    // is looked for then, and its absence refuses the kernel); unset: it is refused.
    std::optional<kernel_sandbox> sandbox_on_request;
    // Serve MCP over HTTP here instead of stdio (mcp_http_listen.hpp).
    std::optional<mcp_http_listen> http;
};

// The servers remembered in `registry_file` (name -> server_params); none when the file is
// missing or unreadable (logged).
std::map<std::string, nlohmann::json> registered_mcp_servers(
    const std::filesystem::path& registry_file);

// Serves MCP on stdin/stdout until stdin closes or SIGTERM/SIGINT arrives (with `http`: over HTTP
// until SIGTERM/SIGINT), then stops every child process. Returns the process exit code (3 when
// --sandbox was asked for and the sandbox runtime is missing, 2 when the HTTP address cannot be
// bound). Logs go to stderr only.
int run_mcp_server(const mcp_server_options& options);

}  // namespace ipybox
