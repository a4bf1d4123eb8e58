#pragma once
// Configuration of the two MCP HTTP client transports. A plain value; validated when a transport
// is created (bad URL or headers: std::invalid_argument).
#include <chrono>
#include <cstddef>
#include <string>

#include "ipybox/mcp/http/wire.hpp"

namespace ipybox::mcp::http {

struct http_transport_options {
    // Streamable HTTP: the MCP endpoint (e.g. https://host/mcp). Legacy SSE: the SSE URL.
    std::string url;
    header_map headers;  // sent with every request, e.g. {"Authorization", "Bearer ..."}
    // Resolving, connecting, the TLS handshake and writing a request, each.
    std::chrono::milliseconds connect_timeout = std::chrono::seconds(30);
    // Waiting for a response header, and the longest silence inside a response body. An idle
    // listening stream that reaches it is reopened, not treated as an error.
    std::chrono::milliseconds read_timeout = std::chrono::seconds(300);
    std::string name;  // for logs and error messages; default: the URL without its query
    // One JSON body or one SSE event; the same limit as the stdio transport's lines.
    std::size_t max_message_bytes = 16 * 1024 * 1024;
    std::string extra_ca_file;  // PEM file trusted in addition to the system store (https)

    // Streamable HTTP only.
    bool listen = true;              // open the GET stream for server-initiated messages
    bool terminate_on_close = true;  // DELETE the session on close()
    // Wait before reopening a broken SSE stream when the server sent no `retry:` field.
    std::chrono::milliseconds default_reconnect_delay = std::chrono::seconds(1);
    // Consecutive reopen attempts of one stream without receiving an event, before giving up.
    int max_reconnect_attempts = 3;
};

}  // namespace ipybox::mcp::http
