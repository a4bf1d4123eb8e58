#pragma once
// A text accumulator with a byte cap: keeps the head and the tail, counts what was dropped
// (the byte-cap form of output clipping, clipping.hpp).
//
// Output of a runaway cell (say 50 MB of prints) must not grow the native process without bound,
// yet the end of the output (where tracebacks and final results are) matters most. Not
// thread-safe; one owner appends.
#include <cstddef>
#include <string>
#include <string_view>

namespace ipybox::core {

class bounded_text {
  public:
    // `max_bytes` is shared between head and tail as split_byte_cap says. 0 means unbounded.
    explicit bounded_text(std::size_t max_bytes);

    void append(std::string_view text);
    // Counts `bytes` that were dropped before reaching us, between what was appended so far
    // and what comes next (only meaningful once the head is full).
    void skip(std::size_t bytes);

    // Head, omitted_bytes_marker(N) if anything was dropped, and tail. Never splits a UTF-8
    // sequence.
    std::string str() const;

    std::size_t dropped_bytes() const { return dropped_; }
    std::size_t total_bytes() const { return total_; }
    bool empty() const { return total_ == 0; }

  private:
    std::size_t head_cap_;
    std::size_t tail_cap_;
    bool unbounded_;
    std::string head_;
    std::string tail_;  // ring content is kept linear: trimmed from the front when over 2x cap
    std::size_t dropped_ = 0;
    std::size_t total_ = 0;
};

}  // namespace ipybox::core
