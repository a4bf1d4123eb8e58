#pragma once
// Pure helpers for the byte-level side of the MCP HTTP transports: which headers a user may set,
// what a response's Content-Type means, which session ids are acceptable, how a JSON body becomes
// messages, and how an HTTP failure is described to a user. No I/O; thread-safe.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ipybox/mcp/jsonrpc/codec.hpp"

namespace ipybox::mcp::http {

// Extra request headers from configuration (e.g. Authorization). Names compare case-insensitively
// on the wire; a std::map keeps them in a stable order.
using header_map = std::map<std::string, std::string>;

// Throws std::invalid_argument unless every name is an HTTP token and every value is free of CR,
// LF and NUL, and no name is one the transport manages itself (Host, Content-Length, Content-Type,
// Transfer-Encoding, Connection, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, ...).
void validate_custom_headers(const header_map& headers);

enum class body_kind { json, event_stream, other };

// By media type, ignoring parameters and case: "application/json; charset=utf-8" -> json.
body_kind classify_content_type(std::string_view content_type);

// MCP: 1 to 1024 visible ASCII characters (0x21-0x7E). Anything else is refused, so a server
// cannot smuggle header syntax into our later requests.
bool is_valid_session_id(std::string_view session_id);

// A JSON response body as messages: one object -> one message, an array (a 2025-03-26 batch) ->
// one per element, empty or whitespace -> none. Text that core::decode_json refuses under
// `limits` (not JSON, invalid UTF-8, too deep, too large) yields one decode_failure.
std::vector<jsonrpc::decode_result> decode_json_body(std::string_view body,
                                                     const core::json_limits& limits = {});

// "HTTP 401 Unauthorized: <what the body says>". When the body is a JSON-RPC error (as MCP servers
// send with 4xx), its message is quoted; otherwise the start of the body, sanitised and shortened.
std::string describe_http_status(unsigned status, std::string_view reason, std::string_view body);

// Code of the error responses the transports synthesise for a request whose HTTP exchange failed
// (the server never answered it on the wire). Inside JSON-RPC's implementation-defined range.
inline constexpr int http_failure_code = -32000;

// The error response that completes request `id` when its HTTP exchange failed; data carries
// {"transport": "http", "httpStatus": status} (status omitted when 0).
jsonrpc::error_response http_failure_response(const jsonrpc::request_id& id, std::string message,
                                              unsigned status = 0);

}  // namespace ipybox::mcp::http
