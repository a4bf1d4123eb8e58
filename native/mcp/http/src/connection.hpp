#pragma once
// One HTTP/1.1 exchange over a fresh TCP or TLS connection, driven by C++20 coroutines on the
// transport's strand. I/O only: the transports decide what requests mean.
//
// Every step has a deadline: resolving, connecting, the TLS handshake and writing the request use
// `connect`; the caller gives the wait for the response header; every body read uses `read` (so
// a stream may stay open as long as data keeps arriving). Failures are thrown as exchange_failure.
// TLS: peer verification against the system trust store (plus an optional extra CA file), host
// name (or IP address) checking, SNI for names.
// Not thread-safe: every member runs on the strand given to the constructor.
// clang-format off
#include <utility>  // Boost 1.74's awaitable.hpp uses std::exchange without including <utility>
// clang-format on

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "ipybox/mcp/http/url.hpp"
#include "ipybox/mcp/http/wire.hpp"

namespace ipybox::mcp::http::detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;

using strand_type = asio::strand<asio::io_context::executor_type>;
using request_type = bhttp::request<bhttp::string_body>;

enum class failure_kind {
    unreachable,  // resolving, connecting or the TLS handshake failed
    timed_out,    // a step exceeded its deadline
    lost,         // the connection broke after it was established
    cancelled,    // cancel() was called
    malformed,    // the response is not valid HTTP, or is larger than allowed
};

class exchange_failure : public std::runtime_error {
  public:
    exchange_failure(failure_kind kind, const std::string& what)
        : std::runtime_error(what), kind_(kind) {}
    failure_kind kind() const noexcept { return kind_; }

  private:
    failure_kind kind_;
};

struct exchange_limits {
    std::chrono::milliseconds connect{30000};
    std::chrono::milliseconds read{300000};
};

// The client TLS context: verify peers against the system store, plus `extra_ca_file` (PEM) when
// not empty. Throws std::runtime_error when the CA file cannot be loaded.
std::shared_ptr<asio::ssl::context> make_tls_context(const std::string& extra_ca_file);

// A request with Host, User-Agent, the configured headers, and `body` (Content-Length set).
request_type make_request(bhttp::verb method, const url& target, const header_map& headers,
                          std::string body = {});

class connection : public std::enable_shared_from_this<connection> {
  public:
    // `tls` is required for https URLs and ignored for http.
    connection(strand_type strand, url target, std::shared_ptr<asio::ssl::context> tls,
               exchange_limits limits);

    // Connects and writes `request`. Throws exchange_failure.
    asio::awaitable<void> send(request_type request);
    // Reads the response header, waiting at most `limit`. Throws exchange_failure.
    asio::awaitable<void> read_header(std::chrono::milliseconds limit);

    unsigned status() const;
    std::string reason() const;
    // A response header's value, empty when absent.
    std::string header(std::string_view name) const;
    bool body_done() const;

    // Up to `size` body bytes into `data`; 0 at the end of the body. Throws exchange_failure.
    asio::awaitable<std::size_t> read_some(char* data, std::size_t size);
    // The whole remaining body; throws exchange_failure (malformed) past `limit` bytes.
    asio::awaitable<std::string> read_all(std::size_t limit);

    // Fails the pending and every later operation with failure_kind::cancelled. Idempotent.
    void cancel();
    // "http://host:port" for messages.
    const url& target() const { return target_; }

  private:
    asio::awaitable<void> connect();
    exchange_failure failure(const boost::system::error_code& error, const char* step,
                             failure_kind kind_if_not_timeout) const;
    beast::tcp_stream& lowest_layer();

    strand_type strand_;
    url target_;
    std::shared_ptr<asio::ssl::context> tls_context_;
    exchange_limits limits_;
    asio::ip::tcp::resolver resolver_;
    asio::steady_timer resolve_deadline_;
    std::optional<beast::tcp_stream> plain_;
    std::optional<beast::ssl_stream<beast::tcp_stream>> tls_;
    beast::flat_buffer buffer_;
    std::optional<bhttp::response_parser<bhttp::buffer_body>> parser_;
    bool cancelled_ = false;
    bool resolve_timed_out_ = false;
};

}  // namespace ipybox::mcp::http::detail
