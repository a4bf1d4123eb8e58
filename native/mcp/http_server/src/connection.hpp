#pragma once
// One accepted TCP connection of the HTTP server: reads requests one after another (keep-alive),
// each under the limits and deadlines of http_limits, checks them (request_rules.hpp), and
// serves each POST through a session until its answer is written (http_server.hpp says how).
// While an answer is awaited, the socket is watched: the client closing it cancels the request;
// bytes of a next (pipelined) request are kept for later.
// I/O only; not thread-safe: everything runs on the connection's strand.
// The coroutines take their arguments by reference to the caller's named objects, and no
// temporary appears in an expression that holds a co_await: GCC 12 may destroy such a temporary
// (or a by-value coroutine parameter built from one) twice (offload.hpp).
// clang-format off
#include <utility>  // Boost 1.74's awaitable.hpp uses std::exchange without including <utility>
// clang-format on
#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "exchange.hpp"
#include "ipybox/mcp/http_server/http_server.hpp"
#include "legacy_sessions.hpp"

namespace ipybox::mcp::http_server::detail {

// What every connection shares with the server.
struct server_state {
    server_state(boost::asio::io_context& context, http_server_options given,
                 session_factory make_session)
        : io(context),
          options(std::move(given)),
          factory(make_session),
          sessions(options.limits.max_legacy_sessions, options.limits.legacy_session_idle,
                   std::move(make_session)) {}

    boost::asio::io_context& io;
    http_server_options options;
    session_factory factory;
    legacy_sessions sessions;
    std::size_t connections = 0;  // on the io_context only
    // Graceful shutdown (http_server::stop_intake): set, a request not yet being served gets 503.
    std::atomic<bool> draining{false};
    std::atomic<std::size_t> requests_in_flight{0};  // authenticated requests being served
};

class connection : public std::enable_shared_from_this<connection> {
  public:
    connection(boost::asio::ip::tcp::socket socket, std::shared_ptr<server_state> server);
    ~connection();

    void start();
    // Closes the socket: a request in progress is cancelled. Any thread.
    void stop();

  private:
    using header_list = std::vector<std::pair<std::string, std::string>>;

    boost::asio::awaitable<void> run();
    boost::asio::awaitable<void> close_gracefully();
    // Serves one request whose head was read; false when the connection must close.
    boost::asio::awaitable<bool> serve_one();
    boost::asio::awaitable<bool> serve_modern(modern_call& call, const client_identity& caller,
                                              bool keep_alive);
    boost::asio::awaitable<bool> serve_legacy(legacy_call& call, const client_identity& caller,
                                              bool keep_alive);
    boost::asio::awaitable<bool> serve_delete(const request_head& head,
                                              const std::string& principal, bool keep_alive);
    // Writes what the session sends for `sink`'s request until its final answer; false when the
    // connection must close (SSE, or the client left). `gone` is called if the client leaves.
    boost::asio::awaitable<bool> stream_answer(const std::shared_ptr<exchange>& sink, bool modern,
                                               const header_list& headers, bool keep_alive,
                                               const std::function<void()>& gone);
    boost::asio::awaitable<bool> write_reply(const http_reply& reply, bool keep_alive);
    boost::asio::awaitable<bool> write_reply(const http_reply& reply, bool keep_alive,
                                             const header_list& extra);
    boost::asio::awaitable<bool> write_raw(const std::string& bytes);
    boost::asio::awaitable<void> watch(std::shared_ptr<exchange> sink);
    boost::asio::awaitable<void> stop_watching();

    strand_type strand_;
    boost::beast::tcp_stream stream_;
    boost::beast::flat_buffer buffer_;
    std::shared_ptr<server_state> server_;
    boost::asio::steady_timer watch_done_;
    bool watching_ = false;
    bool stopping_watch_ = false;
};

}  // namespace ipybox::mcp::http_server::detail
