#include "ipybox/core/bounded_text.hpp"

#include "ipybox/core/clipping.hpp"
#include "ipybox/core/utf8.hpp"

namespace ipybox::core {

bounded_text::bounded_text(std::size_t max_bytes)
    : head_cap_(split_byte_cap(max_bytes).head),
      tail_cap_(split_byte_cap(max_bytes).tail),
      unbounded_(max_bytes == 0) {}

void bounded_text::append(std::string_view text) {
    total_ += text.size();
    if (unbounded_) {
        head_.append(text);
        return;
    }
    if (head_.size() < head_cap_) {
        const std::size_t room = head_cap_ - head_.size();
        const std::size_t take = std::min(room, text.size());
        head_.append(text.substr(0, take));
        text.remove_prefix(take);
    }
    if (text.empty()) return;
    tail_.append(text);
    // Trim lazily (amortised O(1) per byte): only when the tail holds twice its cap.
    if (tail_.size() > 2 * tail_cap_) {
        const std::size_t excess = tail_.size() - tail_cap_;
        tail_.erase(0, excess);
        dropped_ += excess;
    }
}

void bounded_text::skip(std::size_t bytes) {
    total_ += bytes;
    dropped_ += bytes;
    // What the tail holds now came before the skipped bytes: it can no longer be the end.
    if (!unbounded_ && head_.size() >= head_cap_) {
        dropped_ += tail_.size();
        tail_.clear();
    }
}

std::string bounded_text::str() const {
    if (unbounded_) return head_;
    const std::size_t dropped =
        dropped_ + (tail_.size() > tail_cap_ ? tail_.size() - tail_cap_ : 0);
    if (dropped == 0) return head_ + tail_;
    // Do not end the head or start the tail inside a UTF-8 sequence.
    const std::string_view head(head_);
    std::string out(head.substr(0, utf8_complete_prefix_length(head)));
    out += omitted_bytes_marker(dropped);
    out += utf8_tail(tail_, tail_cap_);
    return out;
}

}  // namespace ipybox::core
