#include "ipybox/kernel/kernel_events.hpp"

namespace ipybox::kernel {

// The overflow piece's text, head and tail kept apart; `marker` is its place in the queue.
struct event_queue::overflow {
    std::string name;
    std::string head;
    std::string tail;  // trimmed lazily to keep_bytes / 2 (amortised O(1) per byte)
    std::size_t omitted = 0;
    std::size_t head_cap = 0;
    std::size_t tail_cap = 0;

    void append(std::string_view text) {
        if (head.size() < head_cap) {
            const auto take = std::min(head_cap - head.size(), text.size());
            head.append(text.substr(0, take));
            text.remove_prefix(take);
        }
        tail.append(text);
        if (tail.size() > 2 * tail_cap) {
            omitted += tail.size() - tail_cap;
            tail.erase(0, tail.size() - tail_cap);
        }
    }
};

event_queue::event_queue(std::size_t stream_budget, std::size_t keep_bytes,
                         std::size_t image_budget)
    : stream_budget_(stream_budget), keep_bytes_(keep_bytes), image_budget_(image_budget) {}

void event_queue::bound(std::size_t stream_budget, std::size_t keep_bytes,
                        std::size_t image_budget) {
    std::lock_guard lock(mutex_);
    stream_budget_ = stream_budget;
    keep_bytes_ = keep_bytes;
    image_budget_ = image_budget;
}

std::size_t event_queue::images_left_out() const {
    std::lock_guard lock(mutex_);
    return images_left_out_;
}

std::size_t event_queue::image_budget() const {
    std::lock_guard lock(mutex_);
    return image_budget_;
}

bool event_queue::over_image_budget(const display_output& display) {
    const auto png = display.data.find("image/png");
    if (png == display.data.end() || !png->is_string()) return false;
    const auto size = png->get_ref<const std::string&>().size();
    if (size > image_budget_ - image_bytes_) {
        ++images_left_out_;
        return true;
    }
    image_bytes_ += size;
    return false;
}

std::size_t event_queue::held_stream_bytes() const {
    std::lock_guard lock(mutex_);
    return queued_stream_bytes_ + (overflow_ ? overflow_->head.size() + overflow_->tail.size() : 0);
}

bool event_queue::merge_into_overflow(stream_output& piece) {
    if (keep_bytes_ == 0) return false;
    if (!overflow_) {
        if (queued_stream_bytes_ + piece.text.size() <= stream_budget_) return false;
        overflow_ = std::make_shared<overflow>();
        overflow_->name = piece.name;
        overflow_->head_cap = keep_bytes_ / 2;
        overflow_->tail_cap = keep_bytes_ - keep_bytes_ / 2;
        // The marker holds no text itself; pop() fills it from the overflow piece.
        stream_output marker;
        marker.name = piece.name;
        events_.emplace_back(std::move(marker));
        marker_ = &events_.back();  // a deque keeps references to elements across push/pop
    }
    overflow_->append(piece.text);
    return true;
}

void event_queue::push(kernel_event event) {
    std::function<void()> notify;
    {
        std::lock_guard lock(mutex_);
        if (auto* piece = std::get_if<stream_output>(&event)) {
            // Merged into a piece already queued: whoever waits was told of that one.
            if (merge_into_overflow(*piece)) return;
            queued_stream_bytes_ += piece->text.size();
        } else if (auto* display = std::get_if<display_output>(&event)) {
            if (over_image_budget(*display)) return;
        }
        events_.push_back(std::move(event));
        notify.swap(notify_);
    }
    ready_.notify_one();
    if (notify) notify();
}

void event_queue::notify_when_ready(std::function<void()> notify) {
    {
        std::lock_guard lock(mutex_);
        if (events_.empty()) {
            notify_ = std::move(notify);
            return;
        }
        notify_ = nullptr;
    }
    notify();
}

std::optional<kernel_event> event_queue::pop(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    if (!ready_.wait_until(lock, deadline, [this] { return !events_.empty(); }))
        return std::nullopt;
    const bool is_marker = &events_.front() == marker_;
    auto event = std::move(events_.front());
    events_.pop_front();
    if (auto* piece = std::get_if<stream_output>(&event)) {
        if (is_marker) {
            // The overflow piece leaves the queue: from here on, stream text queues again.
            auto& merged = *overflow_;
            if (merged.tail.size() > merged.tail_cap) {
                merged.omitted += merged.tail.size() - merged.tail_cap;
                merged.tail.erase(0, merged.tail.size() - merged.tail_cap);
            }
            piece->text = std::move(merged.head);
            piece->tail = std::move(merged.tail);
            piece->omitted = merged.omitted;
            if (piece->omitted == 0) {
                piece->text += piece->tail;
                piece->tail.clear();
            }
            overflow_.reset();
            marker_ = nullptr;
        } else {
            queued_stream_bytes_ -= std::min(queued_stream_bytes_, piece->text.size());
        }
    }
    return event;
}

}  // namespace ipybox::kernel
