#include "ipybox/mcp_server.hpp"

#include <boost/asio/signal_set.hpp>
#include <future>
#include <mutex>
#include <thread>

#include "ipybox/approval/request.hpp"
#include "ipybox/code_executor.hpp"
#include "ipybox/core/log.hpp"
#include "ipybox/core/version.hpp"
#include "ipybox/core/work_pool.hpp"
#include "ipybox/executor/mcp_runtime.hpp"
#include "ipybox/executor/package_installer.hpp"
#include "ipybox/gentools/server_registry.hpp"
#include "ipybox/mcp/http_server/http_server.hpp"
#include "ipybox/mcp/session/server_session.hpp"
#include "ipybox/mcp/transport/stdio_server_transport.hpp"
#include "ipybox/sandbox/srt_launcher.hpp"
#include "ipybox/workspace/directory.hpp"
#include "ipybox/workspace/dotenv.hpp"
#include "server_front.hpp"
#include "server_tools.hpp"

namespace ipybox {
namespace {

namespace asio = boost::asio;
using app::add_server_tools;
using app::server_session_options;
using app::server_tools;
using app::tool_lines;

code_executor_options executor_options_for(const mcp_server_options& options) {
    code_executor_options executor;
    executor.workspace = options.workspace;
    executor.python = options.python;
    executor.python_override = options.python_override;
    executor.host_environment = options.host_environment;
    for (const auto& [name, value] : workspace::load_dotenv(options.workspace / ".env")) {
        executor.host_environment.emplace(name, value);  // the real environment wins
    }
    constexpr std::string_view prefix = "KERNEL_ENV_";
    for (const auto& [name, value] : executor.host_environment) {
        if (name.size() > prefix.size() && name.rfind(prefix, 0) == 0) {
            executor.kernel_env[name.substr(prefix.size())] = value;
        }
    }
    // Packages from install_package live in the workspace and are on the kernel's path from the
    // start, so they import at once and survive reset().
    auto& python_path = executor.kernel_env["PYTHONPATH"];
    const auto site = (options.workspace / ".ipybox" / "site-packages").string();
    // It must exist before any kernel starts: Python caches a missing path entry as absent.
    // Created through the workspace's descriptor: a planted link at .ipybox is refused.
    workspace::directory::open_root(options.workspace)
        .make_directories(std::filesystem::path(".ipybox") / "site-packages");
    // The user's packages (install_package with scope "user") come after the project's, so a
    // project pins its own versions. Made now for the same reason; one that cannot be made (a
    // read-only home) stays on the path and holds nothing.
    auto path_entries = site;
    if (const auto user_site = app::user_site_packages(options.library_roots); !user_site.empty()) {
        std::error_code ignored;
        std::filesystem::create_directories(user_site, ignored);
        path_entries += ":" + user_site.string();
    }
    python_path = python_path.empty() ? path_entries : path_entries + ":" + python_path;
    executor.runtime_directory = options.runtime_directory;
    executor.keep_spare_kernel = true;
    executor.approve_tool_calls = true;  // decided by the approval policy in server_tools
    executor.approve_shell_commands = options.approve_shell_commands;
    executor.sandbox = options.sandbox;
    executor.limits = options.limits;
    // The model reads a few thousand characters of a cell's output; the file that keeps the
    // whole of a clipped output holds its first and last 2 MiB. This keeps ipybox mcp's own
    // memory well under 64 MiB whatever a cell prints.
    executor.max_output_bytes = 4 * 1024 * 1024;
    executor.library_roots = options.library_roots;
    // Host-side state (the remembered registrations) is none of the kernel's business.
    if (executor.sandbox && !options.registry_file.empty()) {
        executor.sandbox->unreadable.push_back(options.registry_file.parent_path());
    }
    return executor;
}

// The policy as given, plus, where it allows by default, "ask" for shell commands when their
// approval is on. Appended after the given rules, so that a rule of the user's that names them
// still wins. (Saves into the user library, under --sandbox, need no rule here: only a rule that
// names them exactly can allow them, see server_tools::decide.)
approval::policy approval_policy_for(const mcp_server_options& options) {
    auto document =
        options.approval_policy.is_null() ? nlohmann::json::object() : options.approval_policy;
    std::vector<std::string> asked;
    if (options.approve_shell_commands) {
        // ipybox.shell and ipybox.shell_magic (approval::policy_names).
        asked.push_back(std::string(approval::reserved_server_name) + "." +
                        approval::shell_line_name + "*");
    }
    if (!asked.empty() && document.is_object() &&
        document.value("default", nlohmann::json("allow")) == "allow") {
        auto& rules = document["rules"];
        if (rules.is_null()) rules = nlohmann::json::array();
        if (rules.is_array()) {
            for (const auto& match : asked) rules.push_back({{"match", match}, {"action", "ask"}});
        }
    }
    return approval::policy::from_json(document);
}

// Listens on `listen` and serves every client a session with our tools; null (logged) when the
// address cannot be bound.
std::shared_ptr<mcp::http_server::http_server> serve_http(asio::io_context& io,
                                                          const mcp_http_listen& listen,
                                                          server_tools& tools,
                                                          const tool_lines& lines) {
    mcp::http_server::http_server_options http;
    http.host = listen.host;
    http.port = listen.port;
    http.endpoint.allowed_origins = listen.allowed_origins;
    http.endpoint.require_loopback_host = mcp::http_server::is_loopback_host(listen.host);
    auto log = core::logger("server");
    if (listen.auth_token_file) {
        try {
            http.tokens = mcp::http_server::read_token_file(*listen.auth_token_file);
        } catch (const std::exception& e) {
            log->error("{}", e.what());
            return nullptr;
        }
        log->info("bearer tokens required: {} principal(s) from {}", http.tokens->size(),
                  listen.auth_token_file->string());
    }
    auto server = mcp::http_server::http_server::create(
        io, http,
        [&io, &tools, lines](std::shared_ptr<mcp::transport::transport> channel,
                             const mcp::http_server::client_identity&) {
            auto session = mcp::session::server_session::create(io, std::move(channel),
                                                                server_session_options());
            add_server_tools(*session, tools, lines);
            return session;
        });
    try {
        const auto port = server->start();
        log->info(
            "ipybox {} serving MCP over HTTP on http://{}:{}/mcp", core::version,
            listen.host.find(':') != std::string::npos ? "[" + listen.host + "]" : listen.host,
            port);
    } catch (const std::exception& e) {
        log->error("cannot listen on {}:{}: {}", listen.host, listen.port, e.what());
        return nullptr;
    }
    return server;
}

// A signal over HTTP: no new requests; those being served (cells among them) get up to `grace`
// to finish and be answered. Whatever is left is then cancelled with the kernel's cell.
void drain_http(mcp::http_server::http_server& http, std::chrono::milliseconds grace) {
    auto log = core::logger("server");
    http.stop_intake();
    const auto deadline = std::chrono::steady_clock::now() + grace;
    if (http.requests_in_flight() > 0) {
        log->info("waiting up to {} ms for {} request(s) being served", grace.count(),
                  http.requests_in_flight());
    }
    while (http.requests_in_flight() > 0 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (const auto left = http.requests_in_flight(); left > 0) {
        log->warn("{} request(s) still running after {} ms: cancelling them", left, grace.count());
    }
}

}  // namespace

std::map<std::string, nlohmann::json> registered_mcp_servers(
    const std::filesystem::path& registry_file) {
    return app::server_registry(registry_file).load();
}

int run_mcp_server(const mcp_server_options& options) {
    auto log = core::logger("server");
    std::optional<approval::policy> policy;
    try {
        policy = approval_policy_for(options);  // before anything starts: fail closed
    } catch (const std::invalid_argument& e) {
        log->error("the approval policy is invalid: {}; refusing to start", e.what());
        return 2;
    }
    std::optional<std::filesystem::path> srt;
    if (options.sandbox) {
        // Fail closed, and early (before anything is written to the workspace): without the
        // sandbox runtime no kernel may start at all.
        try {
            srt = sandbox::find_srt(
                options.sandbox->srt, options.host_environment, options.sandbox->srt_fallbacks,
                {std::filesystem::weakly_canonical(std::filesystem::absolute(options.workspace))});
        } catch (const sandbox::sandbox_unavailable& e) {
            log->error("--sandbox: {}; refusing to run the kernel unsandboxed", e.what());
            return 3;
        }
    }
    std::filesystem::create_directories(options.workspace);
    app::server_registry registry(options.registry_file);
    auto executor_options = executor_options_for(options);
    if (executor_options.sandbox) executor_options.sandbox->srt = srt;  // found once
    // Saved actions flagged in earlier sessions (or since, by edits of mcptools/) are marked
    // from the kernel's start.
    executor_options.kernel_env["IPYBOX_CHANGED_TOOLS"] =
        app::pin_saved_actions(options, registry).dump();
    // Kernel code's requests for a saved action's dependencies go to server_tools, which is made
    // after the executor (whose tool server may start earlier, restoring registrations); until
    // it is there, and once it is gone, they are refused. A request being served holds it.
    struct dependency_target {
        std::mutex mutex;
        app::server_tools* tools = nullptr;
    };
    auto target = std::make_shared<dependency_target>();
    executor_options.add_dependencies = [target](const approval::add_dependencies& what) {
        std::lock_guard lock(target->mutex);
        if (!target->tools) return dependencies_added{false, "ipybox is starting or stopping"};
        return target->tools->add_dependencies(what);
    };
    executor_options.dependencies_refusal = [target](const approval::add_dependencies& what) {
        std::lock_guard lock(target->mutex);
        if (!target->tools) return std::string("ipybox is starting or stopping");
        return target->tools->dependencies_refusal(what);
    };
    // One loop for the whole server: the MCP session with the client, the executor's
    // connections to MCP servers and its tool server. It outlives the executor.
    app::mcp_runtime runtime;
    executor_options.io_context = &runtime.io();
    code_executor executor(std::move(executor_options));
    for (const auto& [name, params] : registry.load()) {
        try {
            executor.register_mcp_server(name, params, /*generate_sources=*/false);
        } catch (const std::exception& e) {
            log->warn("cannot restore MCP server '{}': {}", name, e.what());
        }
    }
    server_tools tools(runtime.io(), options, executor, registry, std::move(*policy));
    struct bound_target {  // destroyed before `tools`
        std::shared_ptr<dependency_target> target;
        bound_target(std::shared_ptr<dependency_target> t, app::server_tools& tools)
            : target(std::move(t)) {
            std::lock_guard lock(target->mutex);
            target->tools = &tools;
        }
        ~bound_target() {
            std::lock_guard lock(target->mutex);
            target->tools = nullptr;
        }
        bound_target(const bound_target&) = delete;
        bound_target& operator=(const bound_target&) = delete;
    } bound(target, tools);

    // The kernel starts while the client initializes; the first execution waits for it.
    std::thread kernel_starter([&] {
        try {
            executor.start();
        } catch (const std::exception& e) {
            log->error("the kernel did not start: {}", e.what());
        }
    });

    // The calls that touch the kernel (a cell, pip and the import after it, search, a reset) run
    // one at a time, in the order their requests arrived: each is posted, on the I/O thread as
    // it arrives, to this line of one thread (made when work comes, ended when idle). A call may
    // still wait in the kernel's own queue (kernel_session.hpp) behind an execution from
    // elsewhere, such as a registration unloading a server's modules.
    core::work_pool kernel_calls("kernel-calls", 1);
    // Work that waits on MCP servers (register_mcp_server) runs on threads of its own: however
    // many servers are stuck, cells, search, installs and resets keep the four above. Each
    // registration is bounded by its server's deadlines and ends at notifications/cancelled.
    core::work_pool server_work("registrations", 4);
    std::promise<void> finished;
    std::once_flag finish_once;
    const auto finish = [&] { std::call_once(finish_once, [&] { finished.set_value(); }); };
    int exit_code = 0;
    {
        const tool_lines lines{kernel_calls, server_work};
        std::shared_ptr<mcp::session::server_session> session;
        std::shared_ptr<mcp::http_server::http_server> http;
        if (options.http) {
            http = serve_http(runtime.io(), *options.http, tools, lines);
            if (!http) exit_code = 2;
        } else {
            auto server = server_session_options();
            // Over stdio the plugin's approvals must keep working: a 2026-07-28 client (Claude
            // Code probes with server/discover) is led to initialize until MRTR lets us ask it.
            server.eras = mcp::session::served_eras::legacy_only;
            server.on_closed = [&](const mcp::transport::close_info& info) {
                log->info("client connection closed: {}", info.reason);
                finish();
            };
            session = mcp::session::server_session::create(
                runtime.io(), mcp::transport::make_stdio_server_transport(runtime.io()), server);
            add_server_tools(*session, tools, lines);
        }

        asio::signal_set signals(runtime.io(), SIGTERM, SIGINT);
        signals.async_wait([&](const boost::system::error_code& error, int signal) {
            if (error) return;
            log->info("received signal {}; shutting down", signal);
            exit_code = 128 + signal;
            finish();
        });
        if (session) {
            session->start();
            log->info("ipybox {} serving MCP on stdio; workspace {}", core::version,
                      options.workspace.string());
        }
        if (exit_code != 0) finish();  // the HTTP address could not be bound
        finished.get_future().wait();
        if (http && exit_code > 128) drain_http(*http, options.http->shutdown_grace);

        // Stop the kernel first: a cell still running ends, its worker returns, nothing is left
        // waiting on the session.
        kernel_starter.join();
        executor.cancel();
        tools.stop_server_work("ipybox is shutting down");
        server_work.join();
        executor.stop();
        kernel_calls.join();
        if (session) session->close();
        if (http) http->stop();
        signals.cancel();
    }
    return exit_code;
}

}  // namespace ipybox
