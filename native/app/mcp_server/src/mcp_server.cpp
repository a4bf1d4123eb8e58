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
#include "kernel_handles.hpp"
#include "kernel_unit.hpp"
#include "server_front.hpp"

namespace ipybox {
namespace {

namespace asio = boost::asio;
using app::add_server_tools;
using app::server_session_options;

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
std::shared_ptr<mcp::http_server::http_server> serve_http(
    asio::io_context& io, const mcp_http_listen& listen,
    std::optional<mcp::http_server::token_table> tokens, app::kernel_handles& kernels,
    core::work_pool& server_work) {
    mcp::http_server::http_server_options http;
    http.host = listen.host;
    http.port = listen.port;
    http.endpoint.allowed_origins = listen.allowed_origins;
    http.endpoint.require_loopback_host = mcp::http_server::is_loopback_host(listen.host);
    http.tokens = std::move(tokens);
    auto log = core::logger("server");
    auto server = mcp::http_server::http_server::create(
        io, http,
        [&io, &kernels, &server_work](std::shared_ptr<mcp::transport::transport> channel,
                                      const mcp::http_server::client_identity& who) {
            auto session = mcp::session::server_session::create(io, std::move(channel),
                                                                server_session_options());
            add_server_tools(*session, kernels, server_work, who, /*with_handles=*/true);
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
    std::optional<mcp::http_server::token_table> tokens;
    if (options.http && options.http->auth_token_file) {
        try {
            tokens = mcp::http_server::read_token_file(*options.http->auth_token_file);
        } catch (const std::exception& e) {
            log->error("{}", e.what());
            return 2;
        }
        log->info("bearer tokens required: {} principal(s) from {}", tokens->size(),
                  options.http->auth_token_file->string());
    }
    std::filesystem::create_directories(options.workspace);
    // One loop for the whole server: the MCP sessions with clients, the executors' connections
    // to MCP servers and their tool servers. It outlives every kernel.
    app::mcp_runtime runtime;
    // Over HTTP every kernel ends after the TTL idle, the implicit ones too: nothing stays once
    // the clients have gone. Over stdio the one kernel lives as long as its client.
    app::kernel_handles_settings settings{
        options, srt, std::move(*policy), {}, options.http.has_value()};
    if (options.http) {
        settings.caps.max_kernels = options.http->max_kernels;
        settings.caps.ttl = options.http->kernel_ttl;
        settings.share_template = true;
    }
    app::kernel_handles kernels(runtime.io(), std::move(settings));
    // Work that waits on MCP servers (register_mcp_server) and on kernels being made or stopped
    // (create_kernel, destroy_kernel) runs on threads of its own: however many servers are
    // stuck, cells, search, installs and resets keep their kernels' lines (kernel_unit.hpp).
    // Each registration is bounded by its server's deadlines and ends at notifications/cancelled.
    core::work_pool server_work("registrations", 4);
    std::promise<void> finished;
    std::once_flag finish_once;
    const auto finish = [&] { std::call_once(finish_once, [&] { finished.set_value(); }); };
    int exit_code = 0;
    {
        // Without tokens every client is "local", whose kernel starts while the client
        // initializes (the first execution waits for it); with tokens each principal's starts
        // at its first call.
        if (!tokens) kernels.start(app::client_identity{}.principal);
        std::shared_ptr<mcp::session::server_session> session;
        std::shared_ptr<mcp::http_server::http_server> http;
        if (options.http) {
            http = serve_http(runtime.io(), *options.http, std::move(tokens), kernels, server_work);
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
            add_server_tools(*session, kernels, server_work, app::client_identity{},
                             /*with_handles=*/false);
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

        // Every kernel first: a cell still running ends, its worker returns, nothing is left
        // waiting on a session.
        kernels.stop();
        server_work.join();
        if (session) session->close();
        if (http) http->stop();
        signals.cancel();
    }
    return exit_code;
}

}  // namespace ipybox
