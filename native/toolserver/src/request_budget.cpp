#include "request_budget.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ipybox::toolserver::detail {

std::size_t request_cost(std::size_t body_bytes, std::size_t max_json_values) {
    // A JSON text of n bytes holds at most n/2 + 1 values ("[0,0,...]"): no more can be parsed.
    const std::size_t values = std::min(body_bytes / 2 + 1, max_json_values);
    return fixed_cost_per_request + text_copies_per_request * body_bytes +
           values * bytes_per_json_value;
}

request_budget::request_budget(std::size_t capacity_bytes) : capacity_(capacity_bytes) {}

request_budget::ticket request_budget::reserve(std::size_t bytes, std::function<void()> admitted) {
    if (bytes > capacity_) {
        throw std::invalid_argument("a request of " + std::to_string(bytes) +
                                    " bytes can never fit a budget of " +
                                    std::to_string(capacity_));
    }
    const ticket id = next_ticket_++;
    if (queue_.empty() && in_use_ + bytes <= capacity_) {
        in_use_ += bytes;
        admitted();
        return id;
    }
    queue_.push_back({id, bytes, std::move(admitted)});
    return id;
}

void request_budget::cancel(ticket id) {
    const auto it =
        std::find_if(queue_.begin(), queue_.end(), [id](const waiter& w) { return w.id == id; });
    if (it == queue_.end()) return;
    const bool was_first = it == queue_.begin();
    queue_.erase(it);
    // The first in line may have held back smaller requests behind it.
    if (was_first) admit_waiting();
}

bool request_budget::try_take(std::size_t bytes) {
    if (bytes > capacity_ - in_use_) return false;
    in_use_ += bytes;
    return true;
}

void request_budget::release(std::size_t bytes) {
    in_use_ -= std::min(bytes, in_use_);
    admit_waiting();
}

void request_budget::admit_waiting() {
    while (!queue_.empty() && in_use_ + queue_.front().bytes <= capacity_) {
        auto next = std::move(queue_.front());
        queue_.pop_front();
        in_use_ += next.bytes;
        next.admitted();  // may reserve or release in turn: the loop re-reads the queue
    }
}

}  // namespace ipybox::toolserver::detail
