#pragma once
// UTF-8 decoding for the literal encoders. Internal to codegen.
#include <cstddef>
#include <string_view>

namespace ipybox::codegen::detail {

inline constexpr char32_t replacement_character = 0xFFFD;

// Decodes the code point starting at `text[pos]` and advances `pos` past it. Overlong forms,
// surrogates (including CESU-8 encoded ones), values above U+10FFFF and truncated sequences
// decode as replacement_character and consume one byte, so decoding always makes progress.
// Precondition: pos < text.size().
char32_t decode_utf8(std::string_view text, std::size_t& pos);

}  // namespace ipybox::codegen::detail
