#pragma once
// Newline framing for stdio transports: bytes in, complete lines out. Pure: no I/O, no logging.
//
// Rules (each pinned by a unit test):
// - a line ends at '\n'; one '\r' before it is dropped (CRLF tolerated);
// - empty lines (also whitespace-only ones) are skipped;
// - a line longer than `max_line_bytes` is reported once through on_oversized, as soon as the
//   limit is crossed, and its remaining bytes are discarded up to the next '\n': memory use never
//   exceeds the limit plus one byte, whatever the peer sends. Before they are discarded, all its
//   bytes (from the first) pass through on_skipped, and its end ('\n' or finish()) is reported
//   through on_oversized_end with its length, so that an owner can learn what it was (e.g. the
//   id of an answer) without keeping it;
// - finish() (end of input) delivers a final line that lacks its '\n'.
//
// Not thread-safe: one reader feeds it.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace ipybox::mcp::transport {

inline constexpr std::size_t default_max_line_bytes = 16 * 1024 * 1024;

struct line_sink {
    std::function<void(std::string_view line)> on_line;
    // `limit` is the configured maximum; the line it refers to is being skipped.
    std::function<void(std::size_t limit)> on_oversized;
    std::function<void(std::string_view bytes)> on_skipped;        // optional
    std::function<void(std::size_t line_bytes)> on_oversized_end;  // optional
};

class line_framer {
  public:
    explicit line_framer(std::size_t max_line_bytes = default_max_line_bytes);

    void feed(std::string_view bytes, const line_sink& sink);
    void finish(const line_sink& sink);

    std::size_t buffered_bytes() const { return buffer_.size(); }
    // True between the first byte of a line and its end: a message is in transit.
    bool inside_line() const { return !buffer_.empty() || skipping_; }
    std::size_t max_line_bytes() const { return max_line_bytes_; }

  private:
    void emit(const line_sink& sink);
    void skip(std::string_view bytes, const line_sink& sink);
    void end_skipped(const line_sink& sink);

    std::size_t max_line_bytes_;
    std::string buffer_;
    bool skipping_ = false;  // inside an oversized line, waiting for its '\n'
    std::size_t skipped_bytes_ = 0;
};

}  // namespace ipybox::mcp::transport
