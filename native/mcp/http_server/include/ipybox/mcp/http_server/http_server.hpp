#pragma once
// The Streamable HTTP server of `ipybox mcp --transport http`: one MCP endpoint (POST, and DELETE
// of a legacy session) on the application's io_context, serving both eras at once
// (request_rules.hpp decides which a POST belongs to):
// - 2026-07-28: every POST is a request of its own, served by a fresh server_session that lives
//   for that request; no session id is minted. Closing the stream cancels the request.
// - 2025-11-25 and earlier: initialize opens a session (Mcp-Session-Id), later POSTs name it,
//   DELETE ends it; our requests to the client (elicitation) travel on the stream of the tool
//   call that needs them.
// An answer that comes within `json_window` goes back as one application/json body (a modern
// error with the status request_rules.hpp's status_for_answer gives); otherwise the response
// becomes an SSE stream (200, text/event-stream, then each message as an event, a comment every
// `keepalive` so that clients and proxies see the stream alive, the final answer, and the
// connection closes).
//
// Limits and deadlines (http_limits): the head must arrive within header_timeout and fit
// max_header_bytes, the body within body_timeout and max_body_bytes; every write within
// write_timeout (a client that stops reading loses its stream, which cancels its request); at
// most max_connections at once (more are closed at accept).
//
// Threading: create() and the members may be called from any thread; everything else runs on
// the io_context. Call order: create() → start() → ... → stop(). Destruction without stop() closes
// the acceptor only.
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "ipybox/mcp/http_server/bearer_tokens.hpp"
#include "ipybox/mcp/http_server/request_rules.hpp"
#include "ipybox/mcp/session/server_session.hpp"
#include "ipybox/mcp/transport/transport.hpp"

namespace ipybox::mcp::http_server {

struct http_limits {
    std::size_t max_header_bytes = 16 * 1024;
    std::chrono::milliseconds header_timeout{30000};  // from the first wait for a request
    std::chrono::milliseconds body_timeout{30000};
    std::chrono::milliseconds write_timeout{30000};
    std::chrono::milliseconds json_window{1000};
    std::chrono::milliseconds keepalive{15000};
    std::size_t max_connections = 256;
    std::size_t max_legacy_sessions = 64;
    std::chrono::milliseconds legacy_session_idle{30 * 60 * 1000};
};

struct http_server_options {
    std::string host = "127.0.0.1";  // an IP address
    std::uint16_t port = 8000;       // 0: any free port (start() returns it)
    endpoint_policy endpoint;
    http_limits limits;
    // Set: every request must carry "Authorization: Bearer TOKEN" of one of these (after the
    // Host and Origin checks); otherwise 401 with "WWW-Authenticate: Bearer". Tokens are never
    // logged. Unset: no authentication, every client is the principal "local".
    std::optional<token_table> tokens;
};

// Who sent a request, as the factory sees it.
struct client_identity {
    std::string principal = "local";  // the token's principal; "local" without auth
    principal_limits limits;          // the token's limits; none without auth
    bool modern = false;              // a 2026-07-28 request (else a legacy session)
};

// Makes the server_session for a channel (not started): the application registers its tools.
// Called on the io_context.
using session_factory = std::function<std::shared_ptr<session::server_session>(
    std::shared_ptr<transport::transport> channel, const client_identity& client)>;

class http_server {
  public:
    static std::shared_ptr<http_server> create(boost::asio::io_context& io,
                                               http_server_options options,
                                               session_factory factory);
    ~http_server();

    http_server(const http_server&) = delete;
    http_server& operator=(const http_server&) = delete;

    // Binds and listens; returns the port. Throws std::system_error when the address cannot be
    // bound, std::invalid_argument when host is not an IP address.
    std::uint16_t start();
    // Graceful shutdown, first half: closes the listening socket, and a request that arrives on
    // an open connection from now on gets 503; requests already being served go on. Any thread;
    // idempotent. stop() is the second half.
    void stop_intake();
    // Authenticated requests being served (reading their body, running, streaming the answer).
    std::size_t requests_in_flight() const;
    // Stops accepting, closes every connection (their requests are cancelled) and session.
    // Idempotent.
    void stop();

  private:
    struct impl;
    http_server(boost::asio::io_context& io, http_server_options options, session_factory factory);
    std::shared_ptr<impl> impl_;
};

// True for 127.0.0.0/8 and ::1 (and "localhost"): addresses only this machine can reach.
bool is_loopback_host(const std::string& host);

}  // namespace ipybox::mcp::http_server
