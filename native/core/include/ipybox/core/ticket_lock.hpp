#pragma once
// A first-come, first-served lock: waiters get it in the order they asked. Unlike std::mutex it
// may be released by a thread other than the one that acquired it (an execution's stream can
// finish on another thread than the one that started it).
//
// take_ticket() and wait_turn() split acquire() for callers that must fix their place in line
// on one thread (say, where requests arrive in order) and wait on another.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace ipybox::core {

class ticket_lock {
  public:
    using ticket = std::uint64_t;

    ticket take_ticket();
    void wait_turn(ticket t);
    void acquire() { wait_turn(take_ticket()); }
    // Passes the lock to the next ticket. Call exactly once per acquired turn.
    void release();
    // True once nobody holds or waits for the lock, false if `timeout` passed first.
    bool wait_idle_for(std::chrono::milliseconds timeout);

  private:
    std::mutex mutex_;
    std::condition_variable changed_;
    ticket next_ = 0;
    ticket serving_ = 0;
};

}  // namespace ipybox::core
