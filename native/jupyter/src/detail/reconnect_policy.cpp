#include "reconnect_policy.hpp"

#include <algorithm>

namespace ipybox::jupyter::detail {

reconnect_backoff::duration reconnect_backoff::after_refused() {
    const auto wait = next_;
    if (next_ < options_.longest_refused) next_ = std::min(next_ * 2, options_.longest_refused);
    return wait;
}

reconnect_backoff::duration reconnect_backoff::after_failure() {
    const auto wait = next_;
    next_ = std::min(next_ * 2, options_.longest);
    return wait;
}

std::optional<std::size_t> failure_log::on_failure(clock::time_point now) {
    if (last_line_ && now - *last_line_ < interval_) {
        ++unlogged_;
        return std::nullopt;
    }
    last_line_ = now;
    const auto count = unlogged_ + 1;
    unlogged_ = 0;
    return count;
}

}  // namespace ipybox::jupyter::detail
