#pragma once
// The client side of MCP's Streamable HTTP transport (revisions 2025-03-26 and later).
//
// Every message is POSTed to the endpoint (Accept: application/json, text/event-stream). A
// request's answer comes back as a JSON body or as an SSE stream that may carry requests and
// notifications before the response; notifications and responses get 202 Accepted. The
// Mcp-Session-Id of the initialize response is sent on every later request, and after
// set_protocol_version() so is MCP-Protocol-Version.
//
// - Order: a notification or response is POSTed only after every earlier message's POST has been
//   sent, and it is itself answered (202) before later messages go out, so the server sees
//   notifications/initialized before the next request. Requests run concurrently, one connection
//   each; messages of one response stream are delivered in stream order.
// - Listening: after set_protocol_version(), once a POST has been accepted, a GET stream is opened
//   for server-initiated messages (unless options.listen is false); 405 means the server has none.
// - Resumption: a broken SSE stream (POST or GET) whose events carried ids is reopened with GET and
//   Last-Event-ID after the server's `retry:` delay (or default_reconnect_delay), up to
//   max_reconnect_attempts consecutive attempts without progress. A POST stream that cannot be
//   resumed completes its request with an error response (code http_failure_code).
// - Failures: an HTTP error for a request completes that request with an error response naming
//   the status; the transport stays open. The transport closes, with a reason saying why, when
//   the server cannot be reached (refused, DNS, TLS verification) or a connection breaks with no
//   way to resume, and when a request carrying the session id gets 404 (the session expired: a
//   new session must be initialized).
// - Limits: a JSON body or SSE event over max_message_bytes is refused unread; when it answers
//   a request (a JSON body always answers its POST's request) that request fails with
//   jsonrpc::unreadable_answer naming the limit, as it does for a body that is not JSON.
// - close(): cancels every exchange, sends DELETE with the session id (405 is fine), then reports
//   on_close with requested = true. Destroying the transport without close() does the same,
//   minus the report.
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
class streamable_engine;
}

class streamable_http_transport final : public transport::transport {
  public:
    // Throws std::invalid_argument for an invalid URL or headers, std::runtime_error when the
    // extra CA file cannot be loaded. No connection is made before the first send().
    static std::shared_ptr<streamable_http_transport> create(boost::asio::io_context& io,
                                                             http_transport_options options);
    ~streamable_http_transport() override;

    std::string describe() const override;
    void set_protocol_version(const std::string& version) override;
    // Cancels the POST (or the GET resuming its stream) that carries the answer to `id`.
    void abandon_request(const jsonrpc::request_id& id) override;

    // The session id the server assigned, once the initialize response has arrived.
    std::optional<std::string> session_id() const;

  private:
    streamable_http_transport() = default;
    void do_start() override;
    void do_send(jsonrpc::message msg) override;
    void do_close() override;

    std::shared_ptr<detail::streamable_engine> engine_;
    std::string description_;
};

}  // namespace ipybox::mcp::http
