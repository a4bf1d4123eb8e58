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
        if (skipping_) {
            skip(chunk, sink);
        } else if (buffer_.size() + chunk.size() > max_line_bytes_ + 1) {
            // One byte of slack above: a '\r' may still turn out to precede the '\n'.
            skipping_ = true;
            skipped_bytes_ = 0;
            if (sink.on_oversized) sink.on_oversized(max_line_bytes_);
            skip(buffer_, sink);
            buffer_.clear();
            buffer_.shrink_to_fit();
            skip(chunk, sink);
        } else {
            buffer_.append(chunk);
        }
        if (newline == std::string_view::npos) return;
        if (skipping_) {
            end_skipped(sink);
        } else {
            emit(sink);
        }
        bytes.remove_prefix(newline + 1);
    }
}

void line_framer::finish(const line_sink& sink) {
    if (skipping_) {
        end_skipped(sink);
    } else {
        emit(sink);
    }
    buffer_.clear();
}

void line_framer::skip(std::string_view bytes, const line_sink& sink) {
    skipped_bytes_ += bytes.size();
    if (sink.on_skipped && !bytes.empty()) sink.on_skipped(bytes);
}

void line_framer::end_skipped(const line_sink& sink) {
    skipping_ = false;
    if (sink.on_oversized_end) sink.on_oversized_end(skipped_bytes_);
    skipped_bytes_ = 0;
}

void line_framer::emit(const line_sink& sink) {
    std::string_view line = buffer_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > max_line_bytes_) {
        if (sink.on_oversized) sink.on_oversized(max_line_bytes_);
        if (sink.on_skipped) sink.on_skipped(line);
        if (sink.on_oversized_end) sink.on_oversized_end(line.size());
    } else if (!is_blank(line) && sink.on_line) {
        sink.on_line(line);
    }
    buffer_.clear();
    if (buffer_.capacity() > (1U << 20)) buffer_.shrink_to_fit();  // after a rare huge line
}

}  // namespace ipybox::mcp::transport
