#include "ipybox/core/ticket_lock.hpp"

namespace ipybox::core {

ticket_lock::ticket ticket_lock::take_ticket() {
    std::lock_guard lock(mutex_);
    return next_++;
}

void ticket_lock::wait_turn(ticket t) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return serving_ == t; });
}

void ticket_lock::release() {
    {
        std::lock_guard lock(mutex_);
        ++serving_;
    }
    changed_.notify_all();
}

bool ticket_lock::wait_idle_for(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return serving_ == next_; });
}

}  // namespace ipybox::core
