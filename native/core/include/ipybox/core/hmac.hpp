#pragma once
// HMAC-SHA256 (RFC 2104) over a message given in parts, as lowercase hex, and a comparison of
// such tags that takes the same time wherever they differ. For signatures whose key never leaves
// the process: Jupyter's message signatures (jupyter/signer.hpp) and the requestState of MCP
// input-required results. Pure, thread-safe.
#include <initializer_list>
#include <string>
#include <string_view>

namespace ipybox::core {

// Throws std::runtime_error if OpenSSL cannot compute it (only without its default provider).
std::string hmac_sha256_hex(std::string_view key, std::initializer_list<std::string_view> parts);

// True when `presented` equals `expected`: lengths first, then every byte, in constant time.
bool equal_tags(std::string_view presented, std::string_view expected);

}  // namespace ipybox::core
