#include "cmd_mcp.hpp"

#include "ipybox/approval/policy.hpp"
#include "ipybox/core/log.hpp"
#include "ipybox/mcp_server.hpp"
#include "listen_address.hpp"
#include "server_flags.hpp"

namespace ipybox::cli {
void setup_mcp(CLI::App& app, mcp_command_options& options) {
    auto* mcp = app.add_subcommand(
        "mcp", "Serve the ipybox MCP server on stdio (for Claude Code) or over HTTP");
    mcp->add_option("--workspace", options.workspace,
                    "Kernel working directory; mcptools/, images/ and .env live here")
        ->capture_default_str();
    mcp->add_option("--python", options.python, "Python interpreter with ipykernel");
    add_sandbox_flags(*mcp, options.sandbox, options.sandbox_config, options.guessable_secrets);
    add_limit_flags(*mcp, options.limits);
    add_library_flag(*mcp, options.library);
    mcp->add_option("--approval-policy", options.approval_policy,
                    "JSON rules allowing, denying or asking about tool calls by server.tool");
    mcp->add_flag(
        "--approve-shell-commands", options.approve_shell_commands,
        "Put shell commands (!cmd, %%bash, ...) through the approval policy as "
        "ipybox.shell / ipybox.shell_magic; unless a rule matches them, the user is asked");
    mcp->add_option("--log-level", options.log_level, "Log level on stderr")->capture_default_str();
    mcp->add_option("--transport", options.transport,
                    "MCP transport: stdio, or http (Streamable HTTP at http://HOST:PORT/mcp)")
        ->check(CLI::IsMember({"stdio", "http"}))
        ->capture_default_str();
    mcp->add_option("--listen", options.listen,
                    "With --transport http: HOST:PORT to listen on (port 0 picks a free one; an "
                    "address other machines reach needs --auth-token-file)")
        ->capture_default_str();
    mcp->add_option("--allow-origin", options.allowed_origins,
                    "With --transport http: a browser Origin allowed besides loopback ones, e.g. "
                    "https://app.example (repeatable)")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->allow_extra_args(false);
    mcp->add_option(
        "--auth-token-file", options.auth_token_file,
        "With --transport http: require bearer tokens, one per line as 'TOKEN "
        "PRINCIPAL [max_kernels=N] [max_concurrent_cells=N] [memory=SIZE] [cpu_seconds=N]' "
        "(chmod 600)");
    mcp->add_option("--shutdown-grace", options.shutdown_grace_seconds,
                    "With --transport http: on SIGTERM, seconds that requests being served get "
                    "to finish before they are cancelled (new ones get 503)")
        ->check(CLI::Range(0.0, 3600.0))
        ->capture_default_str();
    mcp->add_option("--max-kernels", options.max_kernels,
                    "With --transport http: most kernels at once across all clients, implicit "
                    "ones included (create_kernel is refused beyond it)")
        ->check(CLI::Range(1, 4096))
        ->capture_default_str();
    mcp->add_option("--approval-wait", options.approval_wait_seconds,
                    "Seconds a cell waits for a 2026-07-28 client to answer an approval (its "
                    "retry of the input_required result) before the approval is rejected")
        ->check(CLI::Range(1.0, 86400.0))
        ->capture_default_str();
    mcp->add_option("--kernel-ttl", options.kernel_ttl_seconds,
                    "With --transport http: seconds a kernel may stay idle before it is stopped "
                    "(its kernel_id then becomes unknown)")
        ->check(CLI::Range(1.0, 30.0 * 86400))
        ->capture_default_str();
}

int run_mcp(const mcp_command_options& options, process::environment_map environment) {
    core::set_log_level(options.log_level);
    mcp_server_options server;
    server.sandbox =
        sandbox_from_flags(options.sandbox, options.sandbox_config, options.guessable_secrets);
    server.limits = limits_from_flags(options.limits, environment);
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
    server.registry_file_for = [environment](const std::filesystem::path& workspace) {
        return registry_file(environment, workspace);
    };
    server.library_roots = library_roots(options.library, environment);
    if (options.approval_policy) {
        server.approval_policy =
            parse_json_argument("--approval-policy", "@" + *options.approval_policy);
        // Fail closed before anything starts: a misspelt key must not leave everything allowed.
        try {
            approval::policy::from_json(server.approval_policy);
        } catch (const std::invalid_argument& e) {
            throw CLI::ValidationError("--approval-policy",
                                       *options.approval_policy + ": " + e.what());
        }
        if (server.sandbox) {
            server.sandbox->unwritable.push_back(
                std::filesystem::absolute(*options.approval_policy).lexically_normal());
        }
    }
    server.approve_shell_commands = options.approve_shell_commands;
    server.approval_wait =
        std::chrono::milliseconds(static_cast<std::int64_t>(options.approval_wait_seconds * 1000));
    if (options.transport == "http") {
        listen_address address;
        try {
            address = parse_listen_address(options.listen);
        } catch (const std::invalid_argument& e) {
            throw CLI::ValidationError("--listen", e.what());
        }
        // Without authentication anyone who reaches the port runs code here.
        if (!options.auth_token_file && !is_loopback_address(address.host)) {
            throw CLI::ValidationError(
                "--listen", address.host +
                                " is reachable from other machines: give --auth-token-file, or "
                                "listen on 127.0.0.1 or ::1");
        }
        std::optional<std::filesystem::path> token_file;
        if (options.auth_token_file) token_file = *options.auth_token_file;
        server.http =
            mcp_http_listen{address.host,
                            address.port,
                            options.allowed_origins,
                            token_file,
                            std::chrono::milliseconds(
                                static_cast<std::int64_t>(options.shutdown_grace_seconds * 1000)),
                            options.max_kernels,
                            std::chrono::milliseconds(
                                static_cast<std::int64_t>(options.kernel_ttl_seconds * 1000))};
        // create_kernel(sandbox=true) on a server without --sandbox: the same settings --sandbox
        // would give, the runtime looked for when such a kernel is asked for.
        if (!server.sandbox) {
            server.sandbox_on_request =
                sandbox_from_flags(true, options.sandbox_config, options.guessable_secrets);
            if (options.approval_policy) {
                server.sandbox_on_request->unwritable.push_back(
                    std::filesystem::absolute(*options.approval_policy).lexically_normal());
            }
        }
    }
    return run_mcp_server(server);
}

}  // namespace ipybox::cli
