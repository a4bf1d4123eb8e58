#pragma once
// Where `ipybox mcp --transport http` listens (mcp_server.hpp): one MCP endpoint, /mcp, serving
// MCP 2026-07-28 per request and 2025-11-25 sessions (mcp/http_server). Values only.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ipybox {

struct mcp_http_listen {
    std::string host = "127.0.0.1";  // an IP address; non-loopback only with auth_token_file
    std::uint16_t port = 8000;       // 0: any free port (logged)
    // Browser origins allowed besides the loopback ones, e.g. "https://app.example".
    std::vector<std::string> allowed_origins;
    // Bearer tokens with their principals and limits (mcp/http_server/bearer_tokens.hpp for the
    // format); the file must be private to its owner. Unset: no authentication.
    std::optional<std::filesystem::path> auth_token_file;
    // On SIGTERM/SIGINT: no new requests (503), and those being served get this long to finish
    // and be answered before the rest are cancelled and the kernel stopped.
    std::chrono::milliseconds shutdown_grace{30000};
    // Kernels at once across the server (implicit ones included), and how long a kernel may be
    // idle before it is stopped (src/kernel_handles.hpp).
    std::size_t max_kernels = 16;
    std::chrono::milliseconds kernel_ttl{std::chrono::minutes(30)};
};

}  // namespace ipybox
