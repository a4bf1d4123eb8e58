#include "ipybox/mcp/transport/line_framer.hpp"

#include <algorithm>

namespace ipybox::mcp::transport {
namespace {

bool is_blank(std::string_view line) {
    return std::all_of(line.begin(), line.end(),
                       [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

}  // namespace

line_framer::line_framer(std::size_t max_line_bytes) : max_line_bytes_(max_line_bytes) {}

void line_framer::feed(std::string_view bytes, const line_sink& sink) {
    while (!bytes.empty()) {
        const auto newline = bytes.find('\n');
        const auto chunk = bytes.substr(0, newline);
        if (!skipping_) {
            // One byte of slack: a '\r' may still turn out to precede the '\n'.
            if (buffer_.size() + chunk.size() > max_line_bytes_ + 1) {
                skipping_ = true;
                buffer_.clear();
                buffer_.shrink_to_fit();
                if (sink.on_oversized) sink.on_oversized(max_line_bytes_);
            } else {
                buffer_.append(chunk);
            }
        }
        if (newline == std::string_view::npos) return;
        if (skipping_) {
            skipping_ = false;
        } else {
            emit(sink);
        }
        bytes.remove_prefix(newline + 1);
    }
}

void line_framer::finish(const line_sink& sink) {
    if (!skipping_) emit(sink);
    skipping_ = false;
    buffer_.clear();
}

void line_framer::emit(const line_sink& sink) {
    std::string_view line = buffer_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > max_line_bytes_) {
        if (sink.on_oversized) sink.on_oversized(max_line_bytes_);
    } else if (!is_blank(line) && sink.on_line) {
        sink.on_line(line);
    }
    buffer_.clear();
    if (buffer_.capacity() > (1U << 20)) buffer_.shrink_to_fit();  // after a rare huge line
}

}  // namespace ipybox::mcp::transport
