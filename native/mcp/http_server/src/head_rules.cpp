// check_head() and the pieces every rule shares (request_rules.hpp).
#include <algorithm>
#include <cctype>

#include "ipybox/mcp/http_server/request_rules.hpp"
#include "ipybox/mcp/jsonrpc/codec.hpp"

namespace ipybox::mcp::http_server {
namespace {

std::string lowercase(std::string_view text) {
    std::string lowered(text);
    std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lowered;
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    return text;
}

// "localhost", "127.0.0.1", "[::1]" with an optional ":port" (digits only).
bool is_loopback_authority(std::string_view authority) {
    std::string_view host = authority;
    if (authority.starts_with('[')) {
        const auto close = authority.find(']');
        if (close == std::string_view::npos) return false;
        host = authority.substr(0, close + 1);
        authority.remove_prefix(close + 1);
    } else {
        const auto colon = authority.find(':');
        host = authority.substr(0, colon);
        authority = colon == std::string_view::npos ? std::string_view() : authority.substr(colon);
    }
    if (!authority.empty()) {
        if (authority.size() < 2 || authority.size() > 6 || authority.front() != ':') return false;
        if (!std::all_of(authority.begin() + 1, authority.end(),
                         [](unsigned char c) { return std::isdigit(c) != 0; }))
            return false;
    }
    const auto name = lowercase(host);
    return name == "localhost" || name == "127.0.0.1" || name == "[::1]";
}

bool origin_allowed(std::string_view origin, const endpoint_policy& policy) {
    const auto lowered = lowercase(origin);
    for (const auto& allowed : policy.allowed_origins) {
        if (lowercase(allowed) == lowered) return true;
    }
    for (const std::string_view scheme : {"http://", "https://"}) {
        if (lowered.starts_with(scheme))
            return is_loopback_authority(lowered.substr(scheme.size()));
    }
    return false;
}

// True when the media range list `accept` covers `type` ("application/json"): the exact type,
// "application/*" or "*/*", parameters ignored.
bool accepts(std::string_view accept, std::string_view type) {
    const auto slash = type.find('/');
    const std::string any_subtype = std::string(type.substr(0, slash)) + "/*";
    std::size_t start = 0;
    while (start <= accept.size()) {
        auto end = accept.find(',', start);
        if (end == std::string_view::npos) end = accept.size();
        auto range = accept.substr(start, end - start);
        range = trim(range.substr(0, range.find(';')));
        const auto lowered = lowercase(range);
        if (lowered == type || lowered == any_subtype || lowered == "*/*") return true;
        start = end + 1;
    }
    return false;
}

http_reply method_not_allowed(const std::string& why) {
    auto reply = error_reply(405, -32000, "Method not allowed: " + why);
    reply.headers.emplace_back("Allow", "POST, DELETE");
    return reply;
}

}  // namespace

void request_head::add(std::string_view name, std::string_view value) {
    headers.emplace(lowercase(name), std::string(value));
}

std::optional<std::string> request_head::header(std::string_view lowercase_name) const {
    const auto found = headers.find(std::string(lowercase_name));
    if (found == headers.end()) return std::nullopt;
    return found->second;
}

bool request_head::duplicated(std::string_view lowercase_name) const {
    return headers.count(std::string(lowercase_name)) > 1;
}

http_reply error_reply(unsigned status, int code, const std::string& message, json data,
                       std::optional<jsonrpc::request_id> id) {
    http_reply reply;
    reply.status = status;
    reply.headers.emplace_back("Content-Type", "application/json");
    reply.body =
        jsonrpc::encode(jsonrpc::error_response{std::move(id), {code, message, std::move(data)}});
    return reply;
}

bool is_session_id(std::string_view text) {
    return !text.empty() && text.size() <= 128 &&
           std::all_of(text.begin(), text.end(), [](char c) { return c > 0x20 && c < 0x7f; });
}

std::optional<http_reply> check_head(const request_head& head, const endpoint_policy& policy) {
    const auto path = std::string_view(head.target).substr(0, head.target.find('?'));
    if (path != policy.path) {
        return error_reply(404, -32000, "Not found: the MCP endpoint is " + policy.path);
    }
    for (const std::string_view once :
         {"host", "origin", "content-type", "mcp-session-id", "mcp-protocol-version", "mcp-method",
          "mcp-name", "authorization"}) {
        if (head.duplicated(once)) {
            return error_reply(400, -32600,
                               "Bad Request: the " + std::string(once) + " header is sent twice");
        }
    }
    const auto host = head.header("host");
    if (!host) return error_reply(400, -32600, "Bad Request: the Host header is missing");
    if (policy.require_loopback_host && !is_loopback_authority(trim(*host))) {
        return error_reply(403, -32000,
                           "Forbidden: this server answers only requests for localhost, 127.0.0.1 "
                           "or [::1] (Host was not one of them)");
    }
    if (const auto origin = head.header("origin");
        origin && !origin_allowed(trim(*origin), policy)) {
        return error_reply(403, -32000,
                           "Forbidden: Origin " + std::string(trim(*origin)) +
                               " is not allowed (ipybox mcp --allow-origin adds one)");
    }
    if (head.method == "GET") {
        return method_not_allowed(
            "this server offers no stream on GET; every message is a POST of its own");
    }
    if (head.method == "DELETE") {
        if (!head.header("mcp-session-id")) {
            return method_not_allowed("DELETE ends a 2025-11-25 session and needs Mcp-Session-Id");
        }
        return std::nullopt;
    }
    if (head.method != "POST") return method_not_allowed(head.method + " is not served");

    const auto content_type = head.header("content-type");
    if (!content_type ||
        lowercase(trim(std::string_view(*content_type).substr(0, content_type->find(';')))) !=
            "application/json") {
        return error_reply(415, -32000,
                           "Unsupported Media Type: the body must be application/json");
    }
    const auto accept = head.header("accept").value_or("");
    if (!accepts(accept, "application/json") || !accepts(accept, "text/event-stream")) {
        return error_reply(406, -32000,
                           "Not Acceptable: the client must accept both application/json and "
                           "text/event-stream");
    }
    if (const auto length = head.header("content-length")) {
        const auto text = trim(*length);
        const bool digits = !text.empty() && text.size() <= 19 &&
                            std::all_of(text.begin(), text.end(),
                                        [](unsigned char c) { return std::isdigit(c) != 0; });
        if (!digits) return error_reply(400, -32600, "Bad Request: invalid Content-Length");
        if (std::stoull(std::string(text)) > policy.max_body_bytes) {
            return error_reply(413, -32600,
                               "Payload Too Large: the body may have at most " +
                                   std::to_string(policy.max_body_bytes) + " bytes");
        }
    }
    return std::nullopt;
}

unsigned status_for_answer(const jsonrpc::message& answer, bool modern) {
    const auto* error = std::get_if<jsonrpc::error_response>(&answer);
    if (!modern || error == nullptr) return 200;
    switch (error->error.code) {
        case jsonrpc::error_code::method_not_found:
            return 404;
        case session::modern_error_code::header_mismatch:
        case session::modern_error_code::missing_required_client_capability:
        case session::modern_error_code::unsupported_protocol_version:
            return 400;
        default:
            return 200;
    }
}

}  // namespace ipybox::mcp::http_server
