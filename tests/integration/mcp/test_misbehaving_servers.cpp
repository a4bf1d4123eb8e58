// Our stdio client against children that crash, hang, print garbage or refuse to die.
#include <fcntl.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <sys/socket.h>

#include <cerrno>
#include <csignal>
#include <fstream>

#include "integration_support.hpp"
#include "ipybox/core/log.hpp"

using namespace ipybox::testing;
using namespace std::chrono_literals;
using ipybox::mcp::jsonrpc::connection_closed;
using ipybox::mcp::jsonrpc::request_timeout;
using ipybox::mcp::session::call_options;
using ipybox::mcp::session::call_tool_result;
using ipybox::mcp::session::tool_descriptor;
using ipybox::mcp::transport::close_info;
using ipybox::mcp::transport::stdio_client_options;

namespace {

stdio_client_options fake_server(const std::string& mode) {
    return node_server(node_dir() / "fake_server.mjs", {mode});
}

int pid_of(const ipybox::mcp::transport::transport& channel) {
    const auto text = channel.describe();
    const auto at = text.find("(pid ");
    REQUIRE(at != std::string::npos);
    return std::stoi(text.substr(at + 5));
}

bool process_gone(int pid) {
    return ::kill(pid, 0) != 0 && errno == ESRCH;
}

stdio_client_options shell(const std::string& script) {
    stdio_client_options options;
    options.command = "sh";
    options.args = {"-c", script};
    options.name = "sh";
    return options;
}

}  // namespace

TEST_SUITE("mcp.integration.misbehaving") {
    TEST_CASE("a child that exits after reading a request fails the pending initialize quickly") {
        stdio_connection c(shell("read line; echo 'bye from the child' >&2; exit 3"));
        const auto started = std::chrono::steady_clock::now();
        REQUIRE(c.try_connect());
        CHECK(std::chrono::steady_clock::now() - started < 2s);
        REQUIRE(c.initialize_result.failed_with<connection_closed>());
        const auto message = c.initialize_result.error_message();
        CHECK(message.find("exited with code 3") != std::string::npos);
        CHECK(message.find("bye from the child") != std::string::npos);
        CHECK(c.client->is_closed());
    }

    TEST_CASE("a server that crashes mid-call fails the call with its exit status and stderr") {
        stdio_connection c(fake_server("crash-on-call"));
        c.connect();
        const auto started = std::chrono::steady_clock::now();
        const auto result = c.await<call_tool_result>(
            [&](auto handler) { c.client->call_tool("noop", json::object(), {}, handler); });
        CHECK(std::chrono::steady_clock::now() - started < 2s);
        REQUIRE(result.failed_with<connection_closed>());
        CHECK(result.error_message().find("exited with code 3") != std::string::npos);
        CHECK(result.error_message().find("crashing on purpose") != std::string::npos);
        CHECK(result.error_message().find("'tools/call'") != std::string::npos);
    }

    TEST_CASE("a server killed by a signal mid-call is reported with the signal") {
        stdio_connection c(fake_server("killed-on-call"));
        c.connect();
        const auto result = c.await<call_tool_result>(
            [&](auto handler) { c.client->call_tool("noop", json::object(), {}, handler); });
        REQUIRE(result.failed_with<connection_closed>());
        CHECK(result.error_message().find("killed by signal 9") != std::string::npos);
    }

    TEST_CASE("garbage lines on the child's stdout are skipped") {
        stdio_connection c(fake_server("garbage"));
        c.connect();
        const auto tools = c.await<std::vector<tool_descriptor>>(
            [&](auto handler) { c.client->list_tools(handler); });
        REQUIRE_FALSE(tools.error());
        CHECK(tools.value().at(0).name == "noop");
        CHECK(c.call("noop", json::object()).content[0]["text"] == "ok");
    }

    TEST_CASE("a server that hangs hits the call timeout and stays usable") {
        stdio_connection c(fake_server("hang-on-call"));
        c.connect();
        call_options options;
        options.timeout = 300ms;
        const auto started = std::chrono::steady_clock::now();
        const auto result = c.await<call_tool_result>(
            [&](auto handler) { c.client->call_tool("noop", json::object(), options, handler); });
        REQUIRE(result.failed_with<request_timeout>());
        CHECK(std::chrono::steady_clock::now() - started < 2s);
        const auto tools = c.await<std::vector<tool_descriptor>>(
            [&](auto handler) { c.client->list_tools(handler); });
        CHECK_FALSE(tools.error());
    }

    TEST_CASE("a server that never answers initialize hits the connect timeout") {
        ipybox::mcp::session::client_options options;
        options.connect_timeout = 300ms;
        stdio_connection c(shell("cat > /dev/null"), options);
        REQUIRE(c.try_connect());
        CHECK(c.initialize_result.failed_with<request_timeout>());
    }

    TEST_CASE("a missing command is reported with the PATH that was searched") {
        stdio_client_options options;
        options.command = "no-such-mcp-server-xyz";
        options.name = "ghost";
        stdio_connection c(options);
        REQUIRE(c.try_connect());
        REQUIRE(c.initialize_result.failed_with<connection_closed>());
        const auto message = c.initialize_result.error_message();
        CHECK(message.find("'no-such-mcp-server-xyz' was not found") != std::string::npos);
        CHECK(message.find("PATH=") != std::string::npos);
    }

    TEST_CASE("the child runs in the given cwd with exactly the allowlisted environment") {
        ::setenv("IPYBOX_TEST_MUST_NOT_LEAK", "secret", 1);
        const auto dir = fresh_directory("mcp-cwd");
        auto options = shell(
            "printf '{\"jsonrpc\":\"2.0\",\"method\":\"report\",\"params\":{\"cwd\":\"%s\","
            "\"leak\":\"%s\",\"passed\":\"%s\"}}\\n' \"$(pwd)\" \"$IPYBOX_TEST_MUST_NOT_LEAK\" "
            "\"$PASSED\"; read line");
        options.cwd = dir;
        options.env = {{"PASSED", "yes"}};
        stdio_connection c(options);
        recorder<json> reports;
        c.client->on_notification("report",
                                  [reports](const auto& note) { reports.add(note.params); });
        c.client->initialize([](std::exception_ptr, auto) {});
        REQUIRE(run_until(c.io, [&] { return reports.size() == 1; }));
        const auto report = reports.items()[0];
        CHECK(std::filesystem::equivalent(report["cwd"].get<std::string>(), dir));
        CHECK(report["leak"] == "");
        CHECK(report["passed"] == "yes");
        ::unsetenv("IPYBOX_TEST_MUST_NOT_LEAK");
    }

    TEST_CASE("a stdio server holds only its stdio, none of our descriptors") {
        // What Asio and ZeroMQ leave without close-on-exec: a listening socket and a plain file.
        const int listening = ::socket(AF_UNIX, SOCK_STREAM, 0);
        const int plain = ::open("/dev/null", O_RDONLY);
        const auto dir = ipybox::testing::fresh_directory("server-fds");
        auto options =
            shell("cd /proc/self/fd && echo * > '" + (dir / "fds").string() + "'; exec cat");
        boost::asio::io_context io;
        auto channel = ipybox::mcp::transport::make_stdio_client_transport(io, options);
        recorder<close_info> closed;
        channel->start([](auto) {}, [closed](const close_info& info) { closed.add(info); });
        REQUIRE(run_until(
            io, [&] { return std::filesystem::exists(dir / "fds"); }, 10s));
        run_for(io, 100ms);
        channel->close();
        REQUIRE(run_until(
            io, [&] { return closed.size() == 1; }, 10s));
        std::ifstream in(dir / "fds");
        std::string seen;
        std::getline(in, seen);
        // The shell reads the directory through one more descriptor of its own (3).
        CHECK((seen == "0 1 2" || seen == "0 1 2 3"));
        ::close(listening);
        ::close(plain);
    }

    TEST_CASE("the child's stderr goes line by line to the logger, never to our stdout") {
        auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(100);
        ipybox::core::set_log_sink(sink);
        auto options = shell("echo 'first line' >&2; printf 'second\\r\\nthird' >&2; read line");
        options.stderr_level = spdlog::level::err;
        boost::asio::io_context io;
        auto channel = ipybox::mcp::transport::make_stdio_client_transport(io, options);
        recorder<close_info> closed;
        channel->start([](auto) {}, [closed](const close_info& info) { closed.add(info); });
        channel->close();
        REQUIRE(run_until(
            io, [&] { return closed.size() == 1; }, 10s));
        ipybox::core::set_log_sink(std::make_shared<spdlog::sinks::stderr_sink_mt>());
        const auto lines = sink->last_formatted();
        std::vector<std::string> forwarded;
        for (const auto& line : lines) {
            const auto at = line.find("[sh stderr] ");
            if (at != std::string::npos) forwarded.push_back(line.substr(at + 12));
        }
        REQUIRE(forwarded.size() == 3);
        CHECK(forwarded[0].rfind("first line", 0) == 0);
        CHECK(forwarded[1].rfind("second", 0) == 0);
        CHECK(forwarded[2].rfind("third", 0) == 0);
    }

    TEST_CASE("shutdown escalates to SIGKILL for a child that ignores stdin and SIGTERM") {
        boost::asio::io_context io;
        auto options = shell("trap '' TERM; while :; do sleep 0.05; done");
        options.stdin_close_grace = 200ms;
        options.terminate_grace = 200ms;
        auto channel = ipybox::mcp::transport::make_stdio_client_transport(io, options);
        recorder<close_info> closed;
        channel->start([](auto) {}, [closed](const close_info& info) { closed.add(info); });
        run_for(io, 100ms);
        const auto started = std::chrono::steady_clock::now();
        channel->close();
        REQUIRE(run_until(
            io, [&] { return closed.size() == 1; }, 10s));
        const auto elapsed = std::chrono::steady_clock::now() - started;
        CHECK(elapsed >= 400ms);
        CHECK(elapsed < 3s);
        const auto info = closed.items()[0];
        CHECK(info.requested);
        CHECK(info.signal == SIGKILL);
    }

    TEST_CASE("a shutdown runs to its end after the transport is dropped") {
        boost::asio::io_context io;
        auto options = shell("trap '' TERM; while :; do sleep 0.05; done");
        options.stdin_close_grace = 100ms;
        options.terminate_grace = 100ms;
        auto channel = ipybox::mcp::transport::make_stdio_client_transport(io, options);
        channel->start([](auto) {}, [](const close_info&) {});
        const int pid = pid_of(*channel);
        channel->close();
        channel.reset();
        CHECK(run_until(
            io, [&] { return process_gone(pid); }, 5s));
    }

    TEST_CASE("a transport dropped without close kills its child") {
        boost::asio::io_context io;
        auto channel = ipybox::mcp::transport::make_stdio_client_transport(io, shell("sleep 30"));
        channel->start([](auto) {}, [](const close_info&) {});
        const int pid = pid_of(*channel);
        run_for(io, 50ms);
        channel.reset();
        CHECK(run_until(
            io, [&] { return process_gone(pid); }, 5s));
    }

    TEST_CASE("destroying the io_context mid-shutdown kills and reaps the child") {
        int pid = 0;
        {
            boost::asio::io_context io;
            auto options = shell("trap '' TERM; while :; do sleep 0.05; done");
            auto channel = ipybox::mcp::transport::make_stdio_client_transport(io, options);
            channel->start([](auto) {}, [](const close_info&) {});
            pid = pid_of(*channel);
            channel->close();
            run_for(io, 50ms);
        }
        CHECK(process_gone(pid));
    }

    TEST_CASE("a child that honours SIGTERM is not killed") {
        boost::asio::io_context io;
        auto options = shell("while :; do sleep 0.05; done");
        options.stdin_close_grace = 100ms;
        auto channel = ipybox::mcp::transport::make_stdio_client_transport(io, options);
        recorder<close_info> closed;
        channel->start([](auto) {}, [closed](const close_info& info) { closed.add(info); });
        channel->close();
        REQUIRE(run_until(
            io, [&] { return closed.size() == 1; }, 10s));
        CHECK(closed.items()[0].signal == SIGTERM);
    }

    TEST_CASE("a child that reads stdin to its end exits on close without signals") {
        boost::asio::io_context io;
        auto channel =
            ipybox::mcp::transport::make_stdio_client_transport(io, shell("cat > /dev/null"));
        recorder<close_info> closed;
        channel->start([](auto) {}, [closed](const close_info& info) { closed.add(info); });
        channel->close();
        REQUIRE(run_until(
            io, [&] { return closed.size() == 1; }, 10s));
        CHECK(closed.items()[0].exit_code == 0);
    }
}
