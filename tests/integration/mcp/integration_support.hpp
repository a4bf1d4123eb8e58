#pragma once
// Locating the npm MCP peers and connecting our client to a stdio server.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "ipybox/mcp/session/client_session.hpp"
#include "ipybox/mcp/transport/stdio_client_transport.hpp"
#include "ipybox/process/executables.hpp"
#include "mcp_test_support.hpp"
#include "test_paths.hpp"

namespace ipybox::testing {

namespace mcp = ipybox::mcp;
using mcp::session::json;

inline std::filesystem::path node_dir() {
    return source_dir() / "tests" / "node";
}

// Fails (never skips) when the npm peers are missing: integration tests must not pass silently.
inline std::filesystem::path npm_peer(const std::string& relative) {
    const auto path = node_dir() / "node_modules" / relative;
    REQUIRE_MESSAGE(std::filesystem::exists(path),
                    path.string() << " is missing: run `npm install --prefix tests/node` in "
                                  << source_dir().string());
    return path;
}

inline std::filesystem::path everything_server() {
    return npm_peer("@modelcontextprotocol/server-everything/dist/index.js");
}

inline std::string node_command() {
    const char* path = std::getenv("PATH");
    const auto node = process::find_executable("node", path != nullptr ? path : "");
    REQUIRE_MESSAGE(node.has_value(), "node is not on PATH: install Node.js 20 or newer");
    return node->string();
}

inline mcp::transport::stdio_client_options node_server(const std::filesystem::path& script,
                                                        std::vector<std::string> args = {}) {
    mcp::transport::stdio_client_options options;
    options.command = "node";
    options.args = {script.string()};
    options.args.insert(options.args.end(), args.begin(), args.end());
    options.name = script.stem().string();
    return options;
}

// A client session on a stdio child; `initialize_result` holds the outcome of initialize.
struct stdio_connection {
    boost::asio::io_context io;
    std::shared_ptr<mcp::session::client_session> client;
    outcome<mcp::session::server_description> initialize_result;

    explicit stdio_connection(mcp::transport::stdio_client_options transport_options,
                              mcp::session::client_options options = {}) {
        client = mcp::session::client_session::create(
            io, mcp::transport::make_stdio_client_transport(io, std::move(transport_options)),
            std::move(options));
    }

    // Initializes and requires success.
    mcp::session::server_description connect() {
        REQUIRE(try_connect());
        REQUIRE_MESSAGE(!initialize_result.error(), initialize_result.error_message());
        return initialize_result.value();
    }
    bool try_connect(std::chrono::milliseconds limit = std::chrono::seconds(20)) {
        client->initialize(initialize_result.handler());
        return run_until(
            io, [&] { return initialize_result.done(); }, limit);
    }

    template <class T, class Start>
    outcome<T> await(Start start, std::chrono::milliseconds limit = std::chrono::seconds(20)) {
        outcome<T> result;
        start(result.handler());
        REQUIRE(run_until(
            io, [&] { return result.done(); }, limit));
        return result;
    }

    mcp::session::call_tool_result call(const std::string& tool, json arguments,
                                        mcp::session::call_options options = {}) {
        auto result = await<mcp::session::call_tool_result>(
            [&](auto handler) { client->call_tool(tool, std::move(arguments), options, handler); });
        REQUIRE_MESSAGE(!result.error(), result.error_message());
        return result.value();
    }
};

// Runs a shell command and returns its stdout (for driving peers we do not link).
inline std::string run_command(const std::string& command) {
    std::string output;
    FILE* pipe = ::popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
    ::pclose(pipe);
    return output;
}

inline std::string quoted(const std::string& text) {
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

}  // namespace ipybox::testing
