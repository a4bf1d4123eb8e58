#pragma once
// Output clipping: text too long to keep whole keeps its beginning and its end around a marker
// that says how much was left out. The end matters most (tracebacks and final values are
// there), the beginning says what the code set out to do. Pure, thread-safe.
//
// Two caps use these rules:
// - bytes, while output streams in: bounded_text.hpp keeps a cell's output within its byte cap
//   (the kernel's event queue merges a backlog with the same split), marked by
//   omitted_bytes_marker;
// - characters, for what a person or an agent reads: one tool result (app's cell output) and a
//   value in an approval question (untrusted_text.hpp's cut_in_middle) go through
//   clip_characters, each with a marker of its own.
// Clipping never splits a UTF-8 sequence.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace ipybox::core {

// How a byte cap is shared: half for the head, the other half (the odd byte included) for the
// tail.
struct head_tail_caps {
    std::size_t head = 0;
    std::size_t tail = 0;
};
constexpr head_tail_caps split_byte_cap(std::size_t max_bytes) {
    return {max_bytes / 2, max_bytes - max_bytes / 2};
}

// The line that stands where a byte cap dropped output: "\n[... N bytes of output omitted ...]\n".
std::string omitted_bytes_marker(std::size_t bytes);

// `text` unchanged when it has at most head + tail code points; else its first `head` and last
// `tail` code points with marker(omitted) between them, `omitted` being the number of code
// points left out (at least 1). Code points are counted as count_code_points (utf8.hpp) counts
// them. `marker` runs only when the text is clipped (it may save the full text somewhere).
std::string clip_characters(std::string_view text, std::size_t head, std::size_t tail,
                            const std::function<std::string(std::size_t omitted)>& marker);

}  // namespace ipybox::core
