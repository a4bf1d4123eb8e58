// classify_post() and the header values it compares with the body (request_rules.hpp).
#include <algorithm>

#include "ipybox/core/base64.hpp"
#include "ipybox/core/utf8.hpp"
#include "ipybox/mcp/http_server/request_rules.hpp"
#include "ipybox/mcp/jsonrpc/codec.hpp"
#include "ipybox/mcp/jsonrpc/errors.hpp"
#include "ipybox/mcp/session/protocol_version.hpp"

namespace ipybox::mcp::http_server {
namespace {

using session::modern_error_code::header_mismatch;

constexpr std::string_view sentinel_start = "=?base64?";
constexpr std::string_view sentinel_end = "?=";

// Which body field Mcp-Name mirrors for `method`; empty when the method has none.
std::string_view name_source(std::string_view method) {
    if (method == "tools/call" || method == "prompts/get") return "name";
    if (method == "resources/read") return "uri";
    return {};
}

http_reply mismatch(const std::string& what, const std::optional<jsonrpc::request_id>& id) {
    return error_reply(400, header_mismatch, "Header mismatch: " + what, nullptr, id);
}

// The standard headers of a modern request against its body (streamable-http, "Server
// Validation"); nullopt when they agree.
std::optional<http_reply> check_mirrored_headers(const request_head& head, std::string_view method,
                                                 const json& params, bool is_request,
                                                 const std::optional<jsonrpc::request_id>& id) {
    const auto version_header = head.header("mcp-protocol-version");
    if (!version_header && is_request) {
        return mismatch("the MCP-Protocol-Version header is required", id);
    }
    const auto method_header = head.header("mcp-method");
    if (!method_header && is_request) return mismatch("the Mcp-Method header is required", id);
    if (method_header && *method_header != method) {
        return mismatch("Mcp-Method header value '" + *method_header +
                            "' does not match body value '" + std::string(method) + "'",
                        id);
    }
    const auto source = name_source(method);
    if (source.empty() || !is_request) return std::nullopt;
    const auto name_header = head.header("mcp-name");
    if (!name_header) {
        return mismatch("the Mcp-Name header is required for " + std::string(method), id);
    }
    const auto decoded = decode_header_value(*name_header);
    if (!decoded) return mismatch("the Mcp-Name header has characters it may not carry", id);
    const auto body_value = params.is_object() ? params.value(std::string(source), json()) : json();
    if (!body_value.is_string() || body_value.get<std::string>() != *decoded) {
        return mismatch("Mcp-Name header value '" + *decoded + "' does not match body value " +
                            body_value.dump(),
                        id);
    }
    return std::nullopt;
}

post_verdict classify_modern(const request_head& head, jsonrpc::message message,
                             const std::string& method, const json& params, bool is_request,
                             const std::optional<jsonrpc::request_id>& id) {
    const auto version_header = head.header("mcp-protocol-version");
    const auto& body_version = params["_meta"][std::string(session::meta_key::protocol_version)];
    if (version_header && body_version.is_string() && body_version != *version_header) {
        return mismatch("MCP-Protocol-Version header value '" + *version_header +
                            "' does not match body value '" + body_version.get<std::string>() + "'",
                        id);
    }
    std::optional<session::request_meta> meta;
    try {
        meta = session::read_request_meta(params);
    } catch (const jsonrpc::jsonrpc_error& error) {
        return error_reply(400, error.code(), error.what(), error.data(), id);
    }
    if (auto refused = check_mirrored_headers(head, method, params, is_request, id)) {
        return std::move(*refused);
    }
    return modern_call{std::move(message), std::move(*meta)};
}

}  // namespace

std::optional<std::string> decode_header_value(std::string_view value) {
    const bool printable = std::all_of(value.begin(), value.end(),
                                       [](char c) { return (c >= 0x20 && c < 0x7f) || c == '\t'; });
    if (!printable) return std::nullopt;
    if (value.size() < sentinel_start.size() + sentinel_end.size() ||
        !value.starts_with(sentinel_start) || !value.ends_with(sentinel_end)) {
        return std::string(value);
    }
    value.remove_prefix(sentinel_start.size());
    value.remove_suffix(sentinel_end.size());
    auto decoded = core::base64_decode(value);
    if (!decoded || core::first_invalid_utf8(*decoded) != decoded->size()) return std::nullopt;
    return decoded;
}

post_verdict classify_post(const request_head& head, std::string_view body,
                           const core::json_limits& limits) {
    auto decoded = jsonrpc::decode(body, limits);
    if (auto* failure = std::get_if<jsonrpc::decode_failure>(&decoded)) {
        return error_reply(400, failure->error.code, failure->error.message, failure->error.data,
                           failure->id);
    }
    auto message = std::get<jsonrpc::message>(std::move(decoded));
    const auto session_id = head.header("mcp-session-id");
    const auto* request = std::get_if<jsonrpc::request>(&message);
    const auto* note = std::get_if<jsonrpc::notification>(&message);
    if (request == nullptr && note == nullptr) {
        // Only a legacy session's client answers us (our elicitation/create).
        if (!session_id) {
            return error_reply(400, jsonrpc::error_code::invalid_request,
                               "Invalid Request: a response is accepted only within the "
                               "2025-11-25 session (Mcp-Session-Id) that asked for it");
        }
        return legacy_call{std::move(message), session_id};
    }
    const std::string method = request ? request->method : note->method;
    const json params = request ? request->params : note->params;
    std::optional<jsonrpc::request_id> id;
    if (request) id = request->id;
    if (session::claims_modern_era(params)) {
        return classify_modern(head, std::move(message), method, params, request != nullptr, id);
    }
    const auto version_header = head.header("mcp-protocol-version");
    if (version_header && session::is_modern_protocol_version(*version_header)) {
        return error_reply(400, jsonrpc::error_code::invalid_params,
                           "Invalid params: MCP-Protocol-Version says " + *version_header +
                               " but the request has no _meta[\"" +
                               std::string(session::meta_key::protocol_version) + "\"]",
                           nullptr, id);
    }
    if (request && method == "initialize") return legacy_call{std::move(message), std::nullopt};
    if (!session_id) {
        return error_reply(400, jsonrpc::error_code::invalid_request,
                           "Bad Request: no Mcp-Session-Id; send initialize first (MCP "
                           "2025-11-25), or _meta with a protocol version (MCP 2026-07-28)",
                           nullptr, id);
    }
    if (!is_session_id(*session_id)) {
        return error_reply(400, jsonrpc::error_code::invalid_request,
                           "Bad Request: malformed Mcp-Session-Id", nullptr, id);
    }
    if (version_header && !session::is_supported_protocol_version(*version_header)) {
        return error_reply(400, jsonrpc::error_code::invalid_request,
                           "Bad Request: unsupported MCP-Protocol-Version " + *version_header,
                           nullptr, id);
    }
    return legacy_call{std::move(message), session_id};
}

}  // namespace ipybox::mcp::http_server
