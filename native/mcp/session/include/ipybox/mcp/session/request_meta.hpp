#pragma once
// The per-request protocol fields of MCP 2026-07-28 (the "modern" era): every request names its
// protocol version and client capabilities in params._meta, and no session is needed. Pure: no
// I/O, no state; thread-safe.
//
// A dual-era server (ours) tells the eras apart per request, body first: a request whose _meta
// holds "io.modelcontextprotocol/protocolVersion" is modern and served statelessly; anything else
// is legacy (2025-11-25 and earlier) and needs the initialize handshake of its connection or
// HTTP session.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ipybox/mcp/session/types.hpp"

namespace ipybox::mcp::session {

inline constexpr std::string_view modern_protocol_version = "2026-07-28";

namespace meta_key {
inline constexpr std::string_view protocol_version = "io.modelcontextprotocol/protocolVersion";
inline constexpr std::string_view client_info = "io.modelcontextprotocol/clientInfo";
inline constexpr std::string_view client_capabilities =
    "io.modelcontextprotocol/clientCapabilities";
inline constexpr std::string_view log_level = "io.modelcontextprotocol/logLevel";
inline constexpr std::string_view server_info = "io.modelcontextprotocol/serverInfo";
}  // namespace meta_key

// Codes MCP 2026-07-28 defines (basic/index, "Error Codes"). On HTTP each is a 400.
namespace modern_error_code {
inline constexpr int header_mismatch = -32020;
inline constexpr int missing_required_client_capability = -32021;
inline constexpr int unsupported_protocol_version = -32022;
}  // namespace modern_error_code

// The eras a server session serves (server_options::eras). legacy_only still answers
// server/discover, listing only the legacy revisions, so that a modern client falls back to
// initialize; any other request claiming 2026-07-28 is then -32022.
enum class served_eras { legacy_and_modern, legacy_only };

// Every revision we serve, modern first: server/discover's supportedVersions and the "supported"
// list of an unsupported-version error.
std::vector<std::string> served_protocol_versions(
    served_eras eras = served_eras::legacy_and_modern);
bool is_modern_protocol_version(std::string_view version);

// What a modern request says about itself.
struct request_meta {
    std::string protocol_version;
    json client_capabilities = json::object();
    implementation_info client_info;  // empty when the client did not say
    std::optional<std::string> log_level;

    // True when the client declared the top-level capability, e.g. "elicitation".
    bool supports(const std::string& capability) const;
};

// True when `params` claims the modern era (its _meta names a protocol version, of any type).
bool claims_modern_era(const json& params);

// The request's modern fields; nullopt for a legacy request (no claim, see above). Throws
// jsonrpc::jsonrpc_error for a claim that cannot be served, in this order:
//   - the version is not a string -> -32602;
//   - it is not a modern revision we serve -> -32022 with data {"supported": [...],
//     "requested": "<as given>"} (a legacy revision too: it needs its handshake);
//   - clientCapabilities missing or not an object, clientInfo or logLevel present but malformed
//     -> -32602 naming the key.
std::optional<request_meta> read_request_meta(const json& params);

// The error for `requested`, as read_request_meta throws it.
jsonrpc::jsonrpc_error unsupported_version_error(const std::string& requested,
                                                 served_eras eras = served_eras::legacy_and_modern);

// A result as a modern client expects it: "resultType": "complete" (unless it is
// "input_required") and our identity in _meta["io.modelcontextprotocol/serverInfo"] (added to any
// _meta the result has).
json complete_result(json result, const implementation_info& server);

}  // namespace ipybox::mcp::session
