#pragma once
// Sessions and raw peers linked through the in-memory transport pair.
#include <doctest/doctest.h>

// clang-format off
#include <utility>  // before any Asio coroutine header: Boost 1.74's awaitable.hpp lacks it
// clang-format on
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ipybox/mcp/session/client_session.hpp"
#include "ipybox/mcp/session/server_session.hpp"
#include "ipybox/mcp/transport/memory_transport.hpp"
#include "mcp_test_support.hpp"

namespace ipybox::testing {

namespace mcp = ipybox::mcp;
using mcp::session::call_tool_result;
using mcp::session::json;
using mcp::session::request_context;
using mcp::session::tool_descriptor;

inline tool_descriptor tool_named(std::string name, std::string description = "") {
    tool_descriptor tool;
    tool.name = std::move(name);
    tool.description = std::move(description);
    return tool;
}

// Waits `duration` inside a tool coroutine; returns false if the request was cancelled first.
inline boost::asio::awaitable<bool> sleep_unless_cancelled(const request_context& context,
                                                           std::chrono::milliseconds duration) {
    boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor, duration);
    auto registration =
        context.cancellation().on_cancel([&timer](const std::string&) { timer.cancel(); });
    boost::system::error_code error;
    co_await timer.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, error));
    co_return !error;
}

// A client_session and a server_session on one in-memory pair.
struct linked_sessions {
    boost::asio::io_context io;
    std::shared_ptr<mcp::session::server_session> server;
    std::shared_ptr<mcp::session::client_session> client;

    explicit linked_sessions(mcp::session::server_options server_options = {},
                             mcp::session::client_options client_options = {}) {
        auto [client_end, server_end] = mcp::transport::make_memory_pair(io);
        server = mcp::session::server_session::create(io, server_end, std::move(server_options));
        client = mcp::session::client_session::create(io, client_end, std::move(client_options));
    }

    mcp::session::server_description connect() {
        server->start();
        outcome<mcp::session::server_description> result;
        client->initialize(result.handler());
        REQUIRE(run_until(io, [&] { return result.done(); }));
        REQUIRE_MESSAGE(!result.error(), result.error_message());
        return result.value();
    }

    template <class T, class Start>
    outcome<T> await(Start start, std::chrono::milliseconds limit = std::chrono::seconds(5)) {
        outcome<T> result;
        start(result.handler());
        REQUIRE(run_until(
            io, [&] { return result.done(); }, limit));
        return result;
    }
};

// A raw JSON-RPC dispatcher as the peer of a session: full control over what is sent.
struct raw_peer {
    std::shared_ptr<mcp::transport::transport> channel;
    std::shared_ptr<mcp::jsonrpc::dispatcher> dispatcher;
    recorder<mcp::jsonrpc::notification> notifications;

    raw_peer(boost::asio::io_context& io, std::shared_ptr<mcp::transport::transport> end)
        : channel(std::move(end)) {
        dispatcher = mcp::jsonrpc::dispatcher::create(
            io, [channel = channel](mcp::jsonrpc::message msg) { channel->send(std::move(msg)); });
        std::weak_ptr<mcp::jsonrpc::dispatcher> weak = dispatcher;
        channel->start(
            [weak](mcp::jsonrpc::decode_result frame) {
                if (auto d = weak.lock()) d->receive(std::move(frame));
            },
            [weak](const mcp::transport::close_info& info) {
                if (auto d = weak.lock()) d->close(info.reason);
            });
    }

    void record_notification(const std::string& method) {
        dispatcher->on_notification(
            method,
            [seen = notifications](const mcp::jsonrpc::notification& note) { seen.add(note); });
    }

    outcome<json> call(boost::asio::io_context& io, const std::string& method, json params) {
        outcome<json> result;
        dispatcher->send_request(method, std::move(params), {}, result.handler());
        REQUIRE(run_until(io, [&] { return result.done(); }));
        return result;
    }

    // The JSON-RPC error code of a failed call, or 0.
    static int error_code(const outcome<json>& result) {
        try {
            if (auto failure = result.error()) std::rethrow_exception(failure);
        } catch (const mcp::jsonrpc::remote_error& error) {
            return error.code();
        } catch (...) {
            return -1;
        }
        return 0;
    }
};

// A server_session (started) on one end of the in-memory pair, a raw client on the other.
struct server_with_raw_client {
    boost::asio::io_context io;
    std::shared_ptr<mcp::session::server_session> server;
    std::unique_ptr<raw_peer> client;

    explicit server_with_raw_client(mcp::session::server_options options = {}) {
        auto [client_end, server_end] = mcp::transport::make_memory_pair(io);
        server = mcp::session::server_session::create(io, server_end, std::move(options));
        server->start();
        client = std::make_unique<raw_peer>(io, client_end);
    }
    outcome<json> call(const std::string& method, json params) {
        return client->call(io, method, std::move(params));
    }
};

}  // namespace ipybox::testing
