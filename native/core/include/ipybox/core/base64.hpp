#pragma once
// Base64 (RFC 4648) decoding and encoding; decoding skips whitespace, as Jupyter's PNG payloads
// may contain newlines. Pure and thread-safe.
#include <optional>
#include <string>
#include <string_view>

namespace ipybox::core {

// The decoded bytes, or nullopt if `text` is not valid base64.
std::optional<std::string> base64_decode(std::string_view text);
std::string base64_encode(std::string_view bytes);

}  // namespace ipybox::core
