#pragma once
// Where `ipybox mcp --transport http` listens (mcp_server.hpp): one MCP endpoint, /mcp, serving
// MCP 2026-07-28 per request and 2025-11-25 sessions (mcp/http_server). Values only.
#include <cstdint>
#include <string>
#include <vector>

namespace ipybox {

struct mcp_http_listen {
    std::string host = "127.0.0.1";  // an IP address; the CLI refuses non-loopback ones
    std::uint16_t port = 8000;       // 0: any free port (logged)
    // Browser origins allowed besides the loopback ones, e.g. "https://app.example".
    std::vector<std::string> allowed_origins;
};

}  // namespace ipybox
