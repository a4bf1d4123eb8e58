#pragma once
// When a channel connects again after a failure, and what of a run of failures it logs. Pure:
// time comes in as arguments, so that tests drive it with a clock of their own.
//
// A kernel that accepts connections and then answers garbage (or closes them) must not make a
// channel reconnect every few milliseconds and log each time for as long as it likes: each such
// failure doubles the wait, up to `longest`, until a connection proves healthy (its handshake
// done and a message delivered). A refused connect (nothing listening yet: a forked kernel binds
// some 50 ms after it was asked for) is cheap and expected at start, so it grows the wait only up
// to `longest_refused`, keeping the first connection close behind the bind; it never shortens a
// wait that failures had grown.
//
// Thread-safety: none; one owner.
#include <chrono>
#include <cstddef>
#include <optional>

namespace ipybox::jupyter::detail {

class reconnect_backoff {
  public:
    using duration = std::chrono::milliseconds;

    struct options {
        duration first{5};
        duration longest_refused{20};
        duration longest{1000};
    };

    reconnect_backoff() : reconnect_backoff(options{}) {}
    explicit reconnect_backoff(options o) : options_(o), next_(o.first) {}

    // The wait before the next attempt after a connect was refused.
    duration after_refused();
    // The wait before the next attempt after an accepted connection failed (closed, broken,
    // garbage) before it was healthy.
    duration after_failure();
    // A connection completed its handshake and delivered a message: waits start short again.
    void healthy() { next_ = options_.first; }

  private:
    options options_;
    duration next_;
};

// The first failure is logged at once; the ones that follow within `interval` of the last line
// are only counted, and said in one line with the next failure once `interval` has passed. So a
// channel logs at most one line per interval however often a kernel makes it fail, and never
// loses count.
class failure_log {
  public:
    using clock = std::chrono::steady_clock;

    explicit failure_log(clock::duration interval = std::chrono::minutes(1))
        : interval_(interval) {}

    // Whether to log a line for a failure at `now`: the number of failures it stands for (this
    // one and those counted since the last line), or nothing to stay quiet.
    std::optional<std::size_t> on_failure(clock::time_point now);

  private:
    clock::duration interval_;
    std::optional<clock::time_point> last_line_;
    std::size_t unlogged_ = 0;
};

}  // namespace ipybox::jupyter::detail
