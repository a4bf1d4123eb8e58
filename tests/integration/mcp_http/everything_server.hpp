#pragma once
// Runs @modelcontextprotocol/server-everything from tests/node in `sse` or `streamableHttp` mode
// on a free port and connects our client session to it over 127.0.0.1. A missing node or
// node_modules fails the test (integration tests never skip).
#include <doctest/doctest.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "ipybox/mcp/http/transport_factory.hpp"
#include "ipybox/mcp/session/client_session.hpp"
#include "mcp_test_support.hpp"

namespace ipybox::testing {

// A free TCP port on 127.0.0.1 (bound and released at once).
std::uint16_t free_port();

class everything_server {
  public:
    // mode: "sse" or "streamableHttp". Waits until the port accepts connections.
    explicit everything_server(const std::string& mode);
    ~everything_server();
    everything_server(const everything_server&) = delete;
    everything_server& operator=(const everything_server&) = delete;

    std::uint16_t port() const { return port_; }
    // "http://127.0.0.1:<port>/sse" or ".../mcp".
    std::string url() const;
    // SIGKILL, as if it crashed.
    void kill_now();
    // What the server printed (stdout and stderr).
    std::string log() const;

  private:
    std::string mode_;
    std::uint16_t port_ = 0;
    int pid_ = -1;
    std::filesystem::path log_path_;
};

// A client session over make_http_transport.
struct http_client {
    boost::asio::io_context io;
    std::shared_ptr<mcp::transport::transport> channel;
    std::shared_ptr<mcp::session::client_session> client;

    explicit http_client(const nlohmann::json& server_params,
                         mcp::session::client_options options = {});

    mcp::session::server_description connect();

    template <class T, class Start>
    outcome<T> await(Start start, std::chrono::milliseconds limit = std::chrono::seconds(20)) {
        outcome<T> result;
        start(result.handler());
        REQUIRE(run_until(
            io, [&] { return result.done(); }, limit));
        return result;
    }

    mcp::session::call_tool_result call(const std::string& tool, nlohmann::json arguments,
                                        mcp::session::call_options options = {});
};

std::string first_text(const mcp::session::call_tool_result& result);

}  // namespace ipybox::testing
