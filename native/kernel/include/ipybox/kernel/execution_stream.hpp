#pragma once
// One execution of a kernel_session, as its consumer sees it: the output chunks as they arrive,
// then its outcome (execution.hpp), a value whatever the ending. The execution itself (its place in
// the session's queue, its timeout, its interrupt) lives on the session's strand; the stream reads
// what the strand and the kernel put in its channel.
//
// Thread-safety: one consumer thread calls wait_started(), next(), take() and finish(); cancel(),
// release(), pause_timeout(), resume_timeout() and wake() may be called from any thread. The
// blocking calls (wait_started, next) throw std::logic_error on a thread that runs the session's
// loop. A stream may outlive its session: the session's stop() ends it.
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ipybox/kernel/execution.hpp"
#include "ipybox/kernel/kernel_events.hpp"
#include "ipybox/kernel/output_collector.hpp"

namespace ipybox::kernel {

namespace detail {
class session_core;
struct queued_execution;
}  // namespace detail

class execution_stream {
  public:
    // Releases the execution's place (see release()); a running execution is cancelled first.
    ~execution_stream();
    execution_stream(const execution_stream&) = delete;
    execution_stream& operator=(const execution_stream&) = delete;

    // Waits until the execution's code went to the kernel (true) or the execution ended without
    // running (false: cancelled while queued, no kernel could start, the kernel was lost before
    // its turn, the session stopped; finish() says which).
    bool wait_started();

    // The next output chunk. Returns nullopt when the execution finished, when `wait_until`
    // passed, or when wake() was called; check finished() to tell which.
    std::optional<output_chunk> next(std::chrono::steady_clock::time_point wait_until =
                                         std::chrono::steady_clock::time_point::max());
    bool finished() const { return finished_; }

    // The same without waiting, for a consumer driven by callbacks (allowed on the session's
    // loop): take() handles what has arrived and returns the next chunk, or nullopt when nothing
    // is waiting or the execution finished; started() and finished() say where it is.
    // notify_when_ready() calls `notify` once when an event waits (at once if one does), from
    // the thread that queues it: it should post, not run, the consumer's next take().
    std::optional<output_chunk> take();
    bool started() const { return started_; }
    void notify_when_ready(std::function<void()> notify);

    // After finished(): how the execution ended (cancelled when cancel() or the session's
    // cancel() stopped it, also before it ran; kernel_died also for code that never ran because
    // the kernel was lost; start_failed when no kernel could start or the session stopped).
    // Throws std::logic_error before finished().
    execution_outcome finish();

    // Cancels this execution: withdrawn from the queue if it waits there, interrupted if it runs.
    void cancel();
    // Gives the execution's place in the queue back: the next operation may start once this one
    // has ended. An execution holds the queue until it has ended AND been released (so its
    // consumer can finish with it, e.g. detach approvals, before the next one starts); a running
    // execution released early is cancelled. Idempotent; the destructor calls it.
    void release();

    // Suspends and resumes the timeout clock, e.g. while a tool call waits for approval.
    void pause_timeout();
    void resume_timeout();
    // Makes a blocked next() return nullopt early.
    void wake();

  private:
    friend class kernel_session;
    execution_stream(std::shared_ptr<detail::session_core> core,
                     std::shared_ptr<detail::queued_execution> entry);
    std::optional<kernel_event> pop(std::chrono::steady_clock::time_point wait_until);
    std::optional<output_chunk> handle(kernel_event& event);
    std::string limit_hint(const error_output& error) const;

    std::shared_ptr<detail::session_core> core_;
    std::shared_ptr<detail::queued_execution> entry_;
    output_collector collector_;
    bool started_ = false;
    bool finished_ = false;
    std::atomic<bool> released_{false};
    std::optional<kernel_died> died_;
    std::optional<error_output> error_;
    execute_reply reply_;
    std::optional<long long> idle_micros_;
};

}  // namespace ipybox::kernel
