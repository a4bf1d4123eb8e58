#pragma once
// What the MCP endpoint of `ipybox mcp --transport http` accepts, as pure functions of a request's
// head and body: no sockets, no state, thread-safe. The connection (connection.cpp) reads with
// limits and deadlines and calls these in order:
//   1. check_head() once the head is read, before any body byte is: the path, the HTTP method,
//      Host and Origin (DNS rebinding), Content-Type, Accept, the declared Content-Length;
//   2. classify_post() once the body is read: which era the message belongs to and, for a
//      modern one, whether the headers that mirror it agree with it.
// Every refusal is an http_reply whose body is a JSON-RPC error response (id null unless the
// request's id could be read). Status codes and error codes follow MCP 2026-07-28 (basic/index,
// transports/streamable-http) and, for legacy sessions, 2025-11-25:
//   400 -32700  the body is not JSON (or over the JSON limits)
//   400 -32600  a batch, a response posted without a session, a legacy request without
//               Mcp-Session-Id
//   400 -32602  a modern _meta that is malformed or lacks clientCapabilities, or a request the
//               MCP-Protocol-Version header calls 2026-07-28 without that _meta
//   400 -32020  MCP-Protocol-Version, Mcp-Method or Mcp-Name missing, malformed or not matching
//               the body (HeaderMismatch)
//   400 -32022  a protocol version we do not serve, with data.supported
//   403         Host not a loopback name (when required) or Origin not allowed
//   404         another path
//   405         GET, DELETE without Mcp-Session-Id, any other method (Allow: POST, DELETE)
//   406 / 415   Accept without application/json and text/event-stream, Content-Type not JSON
//   413         a declared body over the limit
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ipybox/core/json_decode.hpp"
#include "ipybox/mcp/jsonrpc/message.hpp"
#include "ipybox/mcp/session/request_meta.hpp"

namespace ipybox::mcp::http_server {

using json = nlohmann::json;

// A request's head as the rules see it. Header names are stored lowercased; a name sent twice
// keeps every value (a duplicated Origin or Mcp-* header is refused).
struct request_head {
    std::string method;  // "POST"
    std::string target;  // "/mcp?x=1"
    std::multimap<std::string, std::string> headers;

    void add(std::string_view name, std::string_view value);
    // The value of a header sent once; nullopt when absent. A header sent more than once is
    // reported through duplicated().
    std::optional<std::string> header(std::string_view lowercase_name) const;
    bool duplicated(std::string_view lowercase_name) const;
};

struct http_reply {
    unsigned status = 200;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;  // JSON text, or empty
};

struct endpoint_policy {
    std::string path = "/mcp";
    // Host must name a loopback address (localhost, 127.0.0.1, [::1], with any port): set when
    // the server listens on loopback, so that a page whose name rebinds to 127.0.0.1 is refused.
    bool require_loopback_host = true;
    // Origins allowed besides the loopback ones (http or https on localhost, 127.0.0.1, [::1],
    // any port), exactly as browsers send them: "https://app.example.com".
    std::vector<std::string> allowed_origins;
    std::size_t max_body_bytes = 4 * 1024 * 1024;
};

// nullopt when the head passes; otherwise the reply.
std::optional<http_reply> check_head(const request_head& head, const endpoint_policy& policy);

// A 2026-07-28 request or notification, with its _meta read.
struct modern_call {
    jsonrpc::message message;
    session::request_meta meta;
};

// A message for a legacy (2025-11-25 and earlier) session: initialize opens one (session_id is
// then nullopt); everything else names its session.
struct legacy_call {
    jsonrpc::message message;
    std::optional<std::string> session_id;
};

using post_verdict = std::variant<http_reply, modern_call, legacy_call>;

post_verdict classify_post(const request_head& head, std::string_view body,
                           const core::json_limits& limits = {});

// The HTTP status of the final answer to a dispatched request, when it goes out as one JSON body:
// 200, except for a modern request's -32601 (404) and -32021, -32020, -32022 (400). Legacy
// answers are always 200 (the error is in the body).
unsigned status_for_answer(const jsonrpc::message& answer, bool modern);

// An error reply: `status`, Content-Type application/json, a JSON-RPC error response.
http_reply error_reply(unsigned status, int code, const std::string& message, json data = nullptr,
                       std::optional<jsonrpc::request_id> id = std::nullopt);

// The value of Mcp-Name (and Mcp-Param-*) after the "=?base64?...?=" sentinel is removed:
// nullopt when the value has characters a header may not carry or its base64 is invalid.
std::optional<std::string> decode_header_value(std::string_view value);

// MCP session ids we mint and accept: 1 to 128 visible ASCII characters.
bool is_session_id(std::string_view text);

}  // namespace ipybox::mcp::http_server
