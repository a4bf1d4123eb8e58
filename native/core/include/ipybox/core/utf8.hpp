#pragma once
// UTF-8, the one encoding ipybox's text is in: validating, decoding, encoding, repairing, and
// cutting text without splitting a character. Every other module calls these; none restates
// the bit patterns. Pure, thread-safe.
//
// Well-formed means RFC 3629: sequences of 1 to 4 bytes, no overlong forms, no UTF-16
// surrogates (U+D800..U+DFFF, so no CESU-8 either), nothing past U+10FFFF. A lead byte is any
// byte that is not a continuation byte (10xxxxxx).
#include <cstddef>
#include <string>
#include <string_view>

namespace ipybox::core {

inline constexpr char32_t replacement_character = 0xFFFD;  // what ill-formed bytes become

// True for 10xxxxxx, the bytes that continue a multi-byte sequence.
constexpr bool is_utf8_continuation(char byte) {
    return (static_cast<unsigned char>(byte) & 0xC0) == 0x80;
}

// Length of the well-formed sequence starting at text[i] (1 to 4 bytes), or 0 if none starts
// there (a stray continuation byte, a bad lead byte, an overlong form, a surrogate, a value past
// U+10FFFF, or a sequence cut short by the end of `text`). Precondition: i < text.size().
std::size_t utf8_sequence_length(std::string_view text, std::size_t i);

// Decodes the code point starting at text[pos] and advances `pos` past it. Where no well-formed
// sequence starts (utf8_sequence_length 0) it returns replacement_character and consumes one
// byte, so a loop over a whole text always makes progress. Precondition: pos < text.size().
char32_t decode_utf8(std::string_view text, std::size_t& pos);

// Appends the UTF-8 form of `code_point`. Precondition: a Unicode scalar value (at most
// U+10FFFF, not a surrogate), as decode_utf8 returns.
void append_utf8(std::string& out, char32_t code_point);

// The offset of the first byte of `text` that starts an ill-formed sequence, or text.size()
// when the whole text is well-formed.
std::size_t first_invalid_utf8(std::string_view text);

// `text` with every byte that starts no well-formed sequence replaced by U+FFFD (one per byte),
// so that the result can always be serialised as JSON. Well-formed input comes back unchanged.
std::string sanitize_utf8(std::string_view text);

// Length of the longest prefix of `text` that does not end inside a multi-byte sequence: a lead
// byte among the last four bytes whose sequence needs more bytes than follow it is cut off, with
// what follows it. Ill-formed bytes elsewhere are kept (sanitize_utf8 repairs those).
std::size_t utf8_complete_prefix_length(std::string_view text);

// The longest prefix of `text` of at most `max_bytes` bytes that does not end inside a
// multi-byte sequence (utf8_complete_prefix_length of the first max_bytes bytes). Never longer
// than max_bytes; never splits a well-formed sequence; the whole text when it fits.
std::string_view utf8_truncate(std::string_view text, std::size_t max_bytes);

// The longest suffix of `text` of at most `max_bytes` bytes that does not start inside a
// multi-byte sequence: the continuation bytes at its front are dropped, however many there are.
std::string_view utf8_tail(std::string_view text, std::size_t max_bytes);

// The number of lead bytes of `text`, which for well-formed text is its number of code points
// (a byte of an ill-formed sequence counts as one unless it is a continuation byte). Linear,
// no allocation.
std::size_t count_code_points(std::string_view text);

// The offset of the lead byte number `index` (counted as count_code_points counts), or
// text.size() when `text` has no more than `index` of them.
std::size_t code_point_offset(std::string_view text, std::size_t index);

}  // namespace ipybox::core
