#include "ipybox/core/bounded_text.hpp"

#include "ipybox/core/text.hpp"

namespace ipybox::core {

bounded_text::bounded_text(std::size_t max_bytes)
    : head_cap_(max_bytes / 2), tail_cap_(max_bytes - max_bytes / 2), unbounded_(max_bytes == 0) {}

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
    std::string_view tail = tail_;
    std::size_t dropped = dropped_;
    if (tail.size() > tail_cap_) {
        dropped += tail.size() - tail_cap_;
        tail.remove_prefix(tail.size() - tail_cap_);
    }
    if (dropped == 0) return head_ + std::string(tail);
    // Do not start the tail or end the head inside a UTF-8 sequence.
    std::string_view head = head_;
    head = head.substr(0, utf8_complete_prefix_length(head));
    while (!tail.empty() && (static_cast<unsigned char>(tail.front()) & 0xc0) == 0x80) {
        tail.remove_prefix(1);
    }
    std::string out(head);
    out += "\n[... " + std::to_string(dropped) + " bytes of output omitted ...]\n";
    out += tail;
    return out;
}

}  // namespace ipybox::core
