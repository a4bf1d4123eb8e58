#pragma once
// Pure text helpers shared by the kernel and the protocol layers. No I/O, thread-safe.
#include <string>
#include <string_view>

namespace ipybox::core {

// Removes ANSI escape sequences (CSI "ESC [ ... final", OSC "ESC ] ... BEL/ST", and two-byte
// escapes) so that tracebacks read cleanly outside a terminal.
std::string strip_ansi(std::string_view text);

// Returns `text` with every invalid UTF-8 sequence replaced by U+FFFD, so the result can always be
// serialised as JSON. Valid input is returned unchanged.
std::string sanitize_utf8(std::string_view text);

// Length of the valid UTF-8 sequence starting at text[i] (1 to 4 bytes; overlong forms,
// surrogates and code points past U+10FFFF are invalid), or 0 if none starts there.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i);

// The offset of the first byte of `text` that starts an ill-formed UTF-8 sequence, or
// text.size() when there is none. Overlong forms, surrogates and code points past U+10FFFF are
// ill-formed.
std::size_t first_invalid_utf8(std::string_view text);

// Length of the longest prefix of `text` that does not end inside a multi-byte UTF-8 sequence.
std::size_t utf8_complete_prefix_length(std::string_view text);

}  // namespace ipybox::core
