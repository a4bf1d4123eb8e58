#include "ipybox/mcp/http/wire.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>

#include "ipybox/core/redactor.hpp"
#include "ipybox/core/utf8.hpp"

namespace ipybox::mcp::http {
namespace {

constexpr std::size_t max_session_id_length = 1024;
constexpr std::size_t body_excerpt_length = 300;

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
        text.remove_prefix(1);
    }
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
        text.remove_suffix(1);
    }
    return text;
}

bool is_token_char(unsigned char c) {
    return std::isalnum(c) ||
           std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

// Headers whose value the transport owns: letting configuration set them would break framing or
// the MCP session.
constexpr std::array managed_headers{"host",
                                     "content-length",
                                     "content-type",
                                     "transfer-encoding",
                                     "connection",
                                     "accept",
                                     "mcp-session-id",
                                     "mcp-protocol-version",
                                     "last-event-id",
                                     "upgrade",
                                     "te",
                                     "trailer",
                                     "expect",
                                     "keep-alive",
                                     "proxy-connection"};

// The first `limit` bytes of a server's text, on one line. Secrets are redacted before the cut:
// a cut inside one would leave its first part, which the redactor no longer recognises.
std::string one_line(std::string_view text, std::size_t limit) {
    const auto redacted = core::redact_secrets(text);
    const std::string_view whole = redacted;
    std::string out = core::sanitize_utf8(whole.substr(0, limit));
    for (char& c : out) {
        if (c == '\r' || c == '\n' || c == '\t') c = ' ';
    }
    if (whole.size() > limit) out += "...";
    return out;
}

}  // namespace

void validate_custom_headers(const header_map& headers) {
    for (const auto& [name, value] : headers) {
        if (name.empty() || !std::all_of(name.begin(), name.end(), is_token_char)) {
            throw std::invalid_argument("the header name '" + name + "' is not a valid HTTP token");
        }
        if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
            throw std::invalid_argument("the value of header '" + name +
                                        "' contains a line break or NUL");
        }
        const auto key = lower(name);
        if (std::find(managed_headers.begin(), managed_headers.end(), key) !=
            managed_headers.end()) {
            throw std::invalid_argument("the header '" + name +
                                        "' is set by the MCP HTTP transport and cannot be "
                                        "configured");
        }
    }
}

body_kind classify_content_type(std::string_view content_type) {
    const auto media = lower(trim(content_type.substr(0, content_type.find(';'))));
    if (media == "application/json") return body_kind::json;
    if (media == "text/event-stream") return body_kind::event_stream;
    return body_kind::other;
}

bool is_valid_session_id(std::string_view session_id) {
    return !session_id.empty() && session_id.size() <= max_session_id_length &&
           std::all_of(session_id.begin(), session_id.end(),
                       [](unsigned char c) { return c >= 0x21 && c <= 0x7e; });
}

std::vector<jsonrpc::decode_result> decode_json_body(std::string_view body,
                                                     const core::json_limits& limits) {
    std::vector<jsonrpc::decode_result> out;
    const auto text = trim(body);
    if (text.empty()) return out;
    if (!text.starts_with('[')) {
        out.push_back(jsonrpc::decode(text, limits));
        return out;
    }
    // A batch: decoded under the same limits as any single message, then split.
    jsonrpc::json parsed;
    try {
        parsed = core::decode_json(text, limits);
    } catch (const core::json_decode_error& error) {
        out.push_back(jsonrpc::unreadable_message(error.what(), jsonrpc::scan_envelope(text)));
        return out;
    }
    for (const auto& element : parsed) out.push_back(jsonrpc::decode_json(element));
    return out;
}

std::string describe_http_status(unsigned status, std::string_view reason, std::string_view body) {
    std::string text = "HTTP " + std::to_string(status);
    if (!reason.empty()) text += " " + std::string(reason);
    const auto trimmed = trim(body);
    if (trimmed.empty()) return text;
    const auto parsed = jsonrpc::json::parse(trimmed, nullptr, false);
    if (parsed.is_object()) {
        const auto error = parsed.find("error");
        if (error != parsed.end() && error->is_object() && error->contains("message") &&
            (*error)["message"].is_string()) {
            return text + ": " +
                   one_line((*error)["message"].get<std::string>(), body_excerpt_length);
        }
    }
    return text + ": " + one_line(trimmed, body_excerpt_length);
}

jsonrpc::error_response http_failure_response(const jsonrpc::request_id& id, std::string message,
                                              unsigned status) {
    jsonrpc::error_response response;
    response.id = id;
    response.error.code = http_failure_code;
    response.error.message = std::move(message);
    response.error.data = {{"transport", "http"}};
    if (status != 0) response.error.data["httpStatus"] = status;
    return response;
}

}  // namespace ipybox::mcp::http
