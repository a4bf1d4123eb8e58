#include "ipybox/kernel/kernel_events.hpp"

namespace ipybox::kernel {

void event_queue::push(kernel_event event) {
    {
        std::lock_guard lock(mutex_);
        events_.push_back(std::move(event));
    }
    ready_.notify_one();
}

std::optional<kernel_event> event_queue::pop(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    if (!ready_.wait_until(lock, deadline, [this] { return !events_.empty(); }))
        return std::nullopt;
    auto event = std::move(events_.front());
    events_.pop_front();
    return event;
}

}  // namespace ipybox::kernel
