#pragma once
// A first-come, first-served lock: waiters get it in the order they asked. Unlike std::mutex it
// may be released by a thread other than the one that acquired it (an execution's stream can
// finish on another thread than the one that started it).
//
// take_ticket() and wait_turn() split acquire() for callers that must fix their place in line
// on one thread (say, where requests arrive in order) and wait on another. ticket_turn holds a
// turn and passes it on when it goes out of scope.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <utility>

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

// One turn of a ticket_lock, released when the turn is destroyed or release() is called,
// whichever comes first. Movable, so that a turn can travel with the object whose end finishes it
// (an execution's stream); a moved-from turn holds nothing. Not thread-safe itself: one owner.
class ticket_turn {
  public:
    // Waits for a turn: a new ticket's, or one taken earlier with take_ticket().
    explicit ticket_turn(ticket_lock& lock) : lock_(&lock) { lock.acquire(); }
    ticket_turn(ticket_lock& lock, ticket_lock::ticket t) : lock_(&lock) { lock.wait_turn(t); }
    ticket_turn(ticket_turn&& other) noexcept : lock_(std::exchange(other.lock_, nullptr)) {}
    ticket_turn& operator=(ticket_turn&&) = delete;
    ticket_turn(const ticket_turn&) = delete;
    ticket_turn& operator=(const ticket_turn&) = delete;
    ~ticket_turn() { release(); }

    // Passes the lock on now; later calls (and the destructor) do nothing.
    void release() {
        if (auto* lock = std::exchange(lock_, nullptr)) lock->release();
    }
    bool held() const { return lock_ != nullptr; }

  private:
    ticket_lock* lock_;
};

}  // namespace ipybox::core
