#pragma once
// The client side of MCP's legacy HTTP+SSE transport (revision 2024-11-05).
//
// start() opens a GET to the SSE URL; the server's first `endpoint` event names the URL to POST
// messages to (relative references are resolved against the SSE URL; another origin is refused).
// Server messages arrive as `message` events on the GET stream, in order.
//
// - Sending before the endpoint is known queues the message. POSTs go out one at a time, in
//   order (each is answered 202 at once), so the server sees messages in the order we sent them.
// - Deadlines: the GET's response header and the endpoint event within connect_timeout; silence
//   on the stream longer than read_timeout ends the transport (raise it for quiet servers).
// - The stream cannot be resumed in this protocol: when it ends or breaks, the transport closes
//   with the reason. A POST that cannot reach the server closes it too; an HTTP error for a
//   request completes that request with an error response (code http_failure_code).
// - close() cancels everything and reports on_close with requested = true.
// Thread-safety: see transport.hpp; all I/O runs on a strand of the io_context.
// Lifetime: create() returns a shared_ptr; the io_context must outlive the transport.
#include <boost/asio/io_context.hpp>
#include <memory>
#include <optional>
#include <string>

#include "ipybox/mcp/http/http_transport_options.hpp"
#include "ipybox/mcp/transport/transport.hpp"

namespace ipybox::mcp::http {
namespace detail {
class sse_engine;
}

class sse_transport final : public transport::transport {
  public:
    // Throws std::invalid_argument for an invalid URL or headers, std::runtime_error when the
    // extra CA file cannot be loaded. Connects in start().
    static std::shared_ptr<sse_transport> create(boost::asio::io_context& io,
                                                 http_transport_options options);
    ~sse_transport() override;

    std::string describe() const override;
    void set_protocol_version(const std::string& version) override;

    // The URL messages are POSTed to, once the endpoint event has arrived.
    std::optional<std::string> endpoint() const;

  private:
    sse_transport() = default;
    void do_start() override;
    void do_send(jsonrpc::message msg) override;
    void do_close() override;

    std::shared_ptr<detail::sse_engine> engine_;
    std::string description_;
};

}  // namespace ipybox::mcp::http
