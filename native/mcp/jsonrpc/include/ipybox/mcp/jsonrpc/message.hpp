#pragma once
// The JSON-RPC 2.0 message model: plain values, no ids are generated here and nothing is sent.
//
// A request carries an id and expects exactly one response; a notification has no id (absent, not
// null). MCP forbids null request ids, so `request_id` is an integer or a string. An error
// response may have no id when the failing request's id could not be read (parse errors).
//
// Values only: copyable, no shared state, thread-compatible.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>

namespace ipybox::mcp::jsonrpc {

using json = nlohmann::json;

// Integer ids are what we generate; string ids are accepted from peers.
using request_id = std::variant<std::int64_t, std::string>;

// Standard codes (JSON-RPC 2.0 §5.1).
namespace error_code {
inline constexpr int parse_error = -32700;
inline constexpr int invalid_request = -32600;
inline constexpr int method_not_found = -32601;
inline constexpr int invalid_params = -32602;
inline constexpr int internal_error = -32603;
}  // namespace error_code

struct error_object {
    int code = error_code::internal_error;
    std::string message;
    json data;  // null when absent

    friend bool operator==(const error_object&, const error_object&) = default;
};

struct request {
    request_id id;
    std::string method;
    json params;  // null when absent; otherwise an object or an array

    friend bool operator==(const request&, const request&) = default;
};

struct notification {
    std::string method;
    json params;  // null when absent

    friend bool operator==(const notification&, const notification&) = default;
};

struct response {
    request_id id;
    json result;

    friend bool operator==(const response&, const response&) = default;
};

struct error_response {
    std::optional<request_id> id;  // nullopt is written as "id": null
    error_object error;

    friend bool operator==(const error_response&, const error_response&) = default;
};

using message = std::variant<request, notification, response, error_response>;

// "42" or "\"abc\"": an id as it appears in JSON, for logs and error messages.
std::string to_string(const request_id& id);
json to_json(const request_id& id);
// nullopt unless `value` is a string or an integer that fits in 64 bits (MCP forbids null ids).
std::optional<request_id> request_id_from_json(const json& value);

// The method name of a request or notification, empty for responses. For logs.
std::string_view method_of(const message& msg);

}  // namespace ipybox::mcp::jsonrpc
