#pragma once
// Server parameters (the JSON a user registers for an HTTP MCP server) -> the right transport.
//
//   {"url": "https://host/mcp", "type": "streamable_http", "headers": {"Authorization": "..."},
//    "timeout": 30, "sse_read_timeout": 300, "terminate_on_close": true}
//
// The transport is chosen by `type` when present ("streamable_http", "streamable-http",
// "streamableHttp" or "http" -> Streamable HTTP; "sse" -> legacy HTTP+SSE), else by the URL's
// path: the last segment that is exactly "mcp" or "sse" decides. Only path segments count, so
// https://mcp.example.com/x is not a Streamable HTTP URL. Otherwise the error asks for "type".
// `timeout` (seconds) bounds connecting and sending; `sse_read_timeout` (seconds) bounds waiting
// for a response and silence on a stream. Unknown keys are ignored (and logged at debug level).
// ${VAR} placeholders must already have been substituted by the caller.
#include <boost/asio/io_context.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ipybox/mcp/http/http_transport_options.hpp"
#include "ipybox/mcp/http/url.hpp"
#include "ipybox/mcp/transport/transport.hpp"

namespace ipybox::mcp::http {

enum class http_transport_kind { streamable_http, sse };

struct http_server_config {
    http_transport_kind kind = http_transport_kind::streamable_http;
    http_transport_options options;
    std::vector<std::string> ignored_keys;  // keys of server_params we do not know
};

// Pure. `type` may be empty. Throws std::invalid_argument for an unknown type, or when the URL
// does not decide and no type was given.
http_transport_kind choose_http_transport(const std::string& type, const url& target);

// Pure. Throws std::invalid_argument naming the offending key: no "url", a bad URL, a type or
// header that is not a string, an unknown type, a timeout that is not a positive number.
http_server_config parse_http_server_params(const nlohmann::json& server_params);

// parse_http_server_params + create. `name` labels logs and errors (e.g. the server's registered
// name). Throws like parse_http_server_params, and std::runtime_error for an unusable CA file.
std::shared_ptr<transport::transport> make_http_transport(boost::asio::io_context& io,
                                                          const nlohmann::json& server_params,
                                                          const std::string& name = {});

}  // namespace ipybox::mcp::http
