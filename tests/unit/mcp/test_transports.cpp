#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "ipybox/mcp/transport/memory_transport.hpp"
#include "ipybox/mcp/transport/stdio_client_transport.hpp"
#include "ipybox/mcp/transport/stdio_server_transport.hpp"
#include "ipybox/process/environment.hpp"
#include "ipybox/process/executables.hpp"
#include "mcp_test_support.hpp"

using namespace ipybox::mcp;
using namespace std::chrono_literals;
using ipybox::testing::recorder;
using ipybox::testing::run_until;
using json = ipybox::mcp::jsonrpc::json;

namespace {

struct endpoint {
    recorder<jsonrpc::decode_result> received;
    recorder<transport::close_info> closed;

    void start(transport::transport& channel) {
        channel.start([received = received](jsonrpc::decode_result frame) { received.add(frame); },
                      [closed = closed](const transport::close_info& info) { closed.add(info); });
    }
    std::vector<jsonrpc::message> messages() const {
        std::vector<jsonrpc::message> out;
        for (const auto& frame : received.items()) {
            if (const auto* msg = std::get_if<jsonrpc::message>(&frame)) out.push_back(*msg);
        }
        return out;
    }
};

struct pipe_pair {
    int read_end = -1;
    int write_end = -1;
    pipe_pair() {
        int fds[2];
        REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
        read_end = fds[0];
        write_end = fds[1];
    }
    ~pipe_pair() { close_write(), close_read(); }
    void close_write() {
        if (write_end >= 0) ::close(write_end);
        write_end = -1;
    }
    void close_read() {
        if (read_end >= 0) ::close(read_end);
        read_end = -1;
    }
    void write(const std::string& text) const {
        REQUIRE(::write(write_end, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
    }
    std::string read_available() const {
        std::string out;
        char buffer[4096];
        const int flags = ::fcntl(read_end, F_GETFL);
        ::fcntl(read_end, F_SETFL, flags | O_NONBLOCK);
        ssize_t n = 0;
        while ((n = ::read(read_end, buffer, sizeof buffer)) > 0) out.append(buffer, n);
        ::fcntl(read_end, F_SETFL, flags);
        return out;
    }
};

const jsonrpc::message ping{jsonrpc::request{std::int64_t{1}, "ping", nullptr}};

}  // namespace

TEST_SUITE("mcp.transport.memory") {
    TEST_CASE("delivers messages in order, holding those sent before the peer started") {
        boost::asio::io_context io;
        auto [left, right] = transport::make_memory_pair(io);
        endpoint a, b;
        a.start(*left);
        for (std::int64_t i = 1; i <= 3; ++i) {
            left->send(jsonrpc::request{i, "m", nullptr});
        }
        ipybox::testing::run_for(io, 20ms);
        b.start(*right);
        REQUIRE(run_until(io, [&] { return b.received.size() == 3; }));
        const auto got = b.messages();
        for (std::int64_t i = 0; i < 3; ++i) {
            CHECK(std::get<jsonrpc::request>(got[i]).id == jsonrpc::request_id(i + 1));
        }
    }

    TEST_CASE("messages travel through the codec") {
        boost::asio::io_context io;
        auto [left, right] = transport::make_memory_pair(io);
        endpoint a, b;
        a.start(*left);
        b.start(*right);
        left->send(jsonrpc::notification{"n", {{"text", std::string("bad \xff byte")}}});
        REQUIRE(run_until(io, [&] { return b.received.size() == 1; }));
        const auto note = std::get<jsonrpc::notification>(b.messages().at(0));
        CHECK(note.params["text"] == "bad \xEF\xBF\xBD byte");
    }

    TEST_CASE("close reaches both sides once, sending afterwards is an error") {
        boost::asio::io_context io;
        auto [left, right] = transport::make_memory_pair(io);
        endpoint a, b;
        a.start(*left);
        b.start(*right);
        left->close();
        left->close();
        REQUIRE(run_until(io, [&] { return a.closed.size() == 1 && b.closed.size() == 1; }));
        CHECK(a.closed.items()[0].requested);
        CHECK_FALSE(b.closed.items()[0].requested);
        CHECK_THROWS_AS(left->send(ping), transport::transport_error);
        CHECK_THROWS_AS(right->send(ping), transport::transport_error);
        ipybox::testing::run_for(io, 10ms);
        CHECK(a.closed.size() == 1);
    }

    TEST_CASE("starting twice is a logic error and sending before start is refused") {
        boost::asio::io_context io;
        auto [left, right] = transport::make_memory_pair(io);
        CHECK_THROWS_AS(left->send(ping), transport::transport_error);
        endpoint a;
        a.start(*left);
        CHECK_THROWS_AS(a.start(*left), std::logic_error);
    }
}

TEST_SUITE("mcp.transport.stdio_server") {
    TEST_CASE("reads JSON lines from its input and writes one line per message to its output") {
        boost::asio::io_context io;
        pipe_pair input, output;
        auto channel = transport::make_stdio_server_transport(
            io, {transport::default_max_line_bytes, input.read_end, output.write_end});
        endpoint e;
        e.start(*channel);
        input.write("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\n");
        input.write("{\"jsonrpc\":\"2.0\",\"method\":\"n\"}");
        input.write("\nnot json\n");
        REQUIRE(run_until(io, [&] { return e.received.size() == 3; }));
        CHECK(std::get<jsonrpc::request>(e.messages().at(0)).method == "ping");
        CHECK(std::get<jsonrpc::decode_failure>(e.received.items()[2]).error.code ==
              jsonrpc::error_code::parse_error);
        channel->send(jsonrpc::response{std::int64_t{1}, json::object()});
        channel->send(jsonrpc::notification{"after", nullptr});
        std::string written;
        REQUIRE(run_until(io, [&] {
            written += output.read_available();
            return std::count(written.begin(), written.end(), '\n') == 2;
        }));
        CHECK(written ==
              "{\"id\":1,\"jsonrpc\":\"2.0\",\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"method\":"
              "\"after\"}\n");
    }

    TEST_CASE("end of file on its input reports on_close") {
        boost::asio::io_context io;
        pipe_pair input, output;
        auto channel = transport::make_stdio_server_transport(
            io, {transport::default_max_line_bytes, input.read_end, output.write_end});
        endpoint e;
        e.start(*channel);
        input.write("{\"jsonrpc\":\"2.0\",\"method\":\"last\"}");
        input.close_write();
        REQUIRE(run_until(io, [&] { return e.closed.size() == 1; }));
        CHECK(e.received.size() == 1);  // the unterminated last line still counts
        CHECK(e.closed.items()[0].reason.find("end of file") != std::string::npos);
        CHECK_FALSE(e.closed.items()[0].requested);
    }

    TEST_CASE("an oversized line becomes a parse error and the next line still arrives") {
        boost::asio::io_context io;
        pipe_pair input, output;
        auto channel =
            transport::make_stdio_server_transport(io, {64, input.read_end, output.write_end});
        endpoint e;
        e.start(*channel);
        input.write(std::string(1000, 'x') + "\n{\"jsonrpc\":\"2.0\",\"method\":\"ok\"}\n");
        REQUIRE(run_until(io, [&] { return e.received.size() == 2; }));
        const auto items = e.received.items();
        CHECK(std::get<jsonrpc::decode_failure>(items[0]).error.message.find("longer than 64") !=
              std::string::npos);
        CHECK(std::get<jsonrpc::notification>(std::get<jsonrpc::message>(items[1])).method == "ok");
    }

    TEST_CASE("close writes what is queued, then reports on_close as requested") {
        boost::asio::io_context io;
        pipe_pair input, output;
        auto channel = transport::make_stdio_server_transport(
            io, {transport::default_max_line_bytes, input.read_end, output.write_end});
        endpoint e;
        e.start(*channel);
        for (int i = 0; i < 50; ++i) channel->send(jsonrpc::notification{"n", {{"i", i}}});
        channel->close();
        REQUIRE(run_until(io, [&] { return e.closed.size() == 1; }));
        CHECK(e.closed.items()[0].requested);
        const auto written = output.read_available();
        CHECK(std::count(written.begin(), written.end(), '\n') == 50);
    }

    TEST_CASE("a reader that went away closes the transport instead of killing the process") {
        boost::asio::io_context io;
        pipe_pair input, output;
        auto channel = transport::make_stdio_server_transport(
            io, {transport::default_max_line_bytes, input.read_end, output.write_end});
        endpoint e;
        e.start(*channel);
        output.close_read();
        channel->send(jsonrpc::notification{"n", nullptr});
        REQUIRE(run_until(io, [&] { return e.closed.size() == 1; }));
        CHECK(e.closed.items()[0].reason.find("writing stdout failed") != std::string::npos);
    }

    TEST_CASE("destruction returns even while the peer never reads") {
        boost::asio::io_context io;
        pipe_pair input, output;
        {
            auto channel = transport::make_stdio_server_transport(
                io, {transport::default_max_line_bytes, input.read_end, output.write_end});
            endpoint e;
            e.start(*channel);
            const std::string big(100000, 'y');
            for (int i = 0; i < 20; ++i) channel->send(jsonrpc::notification{"n", {{"x", big}}});
            ipybox::testing::run_for(io, 50ms);
        }
        CHECK(true);
    }
}

TEST_SUITE("mcp.transport.stdio_client.environment") {
    TEST_CASE("inherits only allowlisted variables, skipping bash functions, then applies env") {
        const transport::environment_map parent = {{"PATH", "/usr/bin"},
                                                   {"HOME", "/home/u"},
                                                   {"SECRET_TOKEN", "s3cr3t"},
                                                   {"SHELL", "() { echo pwned; }"},
                                                   {"LANG", "C.UTF-8"}};
        transport::stdio_client_options options;
        options.inherited =
            ipybox::process::filter_environment(parent, ipybox::process::default_allowlist());
        options.env = {{"HOME", "/tmp/h"}, {"API_KEY", "k"}};
        CHECK(transport::child_environment(options) ==
              transport::environment_map{
                  {"PATH", "/usr/bin"}, {"HOME", "/tmp/h"}, {"LANG", "C.UTF-8"}, {"API_KEY", "k"}});
    }

    TEST_CASE("by default the child inherits the allowlisted part of our own environment") {
        transport::stdio_client_options options;
        const auto env = transport::child_environment(options);
        CHECK(env.count("PATH") == 1);
        for (const auto& [name, value] : env) {
            const auto& allowed = ipybox::process::default_allowlist();
            CHECK(std::find(allowed.begin(), allowed.end(), name) != allowed.end());
        }
    }

    TEST_CASE("finds commands on the given PATH only") {
        using ipybox::process::find_executable;
        CHECK(find_executable("sh", "/nonexistent:/bin:/usr/bin").has_value());
        CHECK_FALSE(find_executable("sh", "/nonexistent").has_value());
        CHECK_FALSE(find_executable("definitely-not-a-command-xyz", "/bin:/usr/bin"));
        CHECK(find_executable("/bin/sh", "") == std::filesystem::path("/bin/sh"));
        CHECK_FALSE(find_executable("/etc/passwd", ""));
    }
}
