#pragma once
// MCP protocol revisions we speak. Pure, thread-safe.
#include <string>
#include <string_view>
#include <vector>

namespace ipybox::mcp::session {

// What a client offers and what a server answers when the requested revision is unknown.
inline constexpr std::string_view latest_protocol_version = "2025-11-25";

// Newest first: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05.
const std::vector<std::string>& supported_protocol_versions();

bool is_supported_protocol_version(std::string_view version);

// The version a server answers to a client that requested `requested`: the same if supported,
// otherwise our latest (the client then decides whether it can continue).
std::string negotiate_protocol_version(std::string_view requested);

}  // namespace ipybox::mcp::session
