#pragma once
// A stateful Python session: one current kernel, optionally a pre-started spare, and the rules
// that keep the session usable whatever the code does.
//
//  * Executions run one at a time, in call order; a second execute() waits for the first.
//  * A timeout interrupts the kernel and keeps its state. Code that does not stop when
//    interrupted (it swallows KeyboardInterrupt, or blocks in C) gets the kernel restarted after
//    `interrupt_grace`, and the error says the state was lost.
//  * A kernel that dies (os._exit, a segfault, the OOM killer) fails the running execution at
//    once; the next execution runs in a fresh kernel and its result carries a notice.
//  * reset() swaps in the spare kernel (fast), retires the old one in the background and starts
//    a new spare.
//
// Thread-safety: all methods may be called from any thread; cancel() is meant to be called
// while another thread consumes a stream. The session must outlive its streams.
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ipybox/core/ticket_lock.hpp"
#include "ipybox/kernel/execution.hpp"
#include "ipybox/kernel/kernel_instance.hpp"
#include "ipybox/kernel/output_collector.hpp"

namespace ipybox::kernel {

struct session_options {
    kernel_launch launch;
    std::filesystem::path images_directory;  // empty: <working directory>/images
    std::size_t max_output_bytes = 8 * 1024 * 1024;
    std::chrono::milliseconds start_timeout{30000};
    std::chrono::milliseconds interrupt_grace{3000};
    bool keep_spare = true;
};

class kernel_session;

// One execution, consumed by pulling. Not thread-safe except cancel-related calls that the
// session makes; one consumer thread calls next() until finished(), then finish().
class execution_stream {
  public:
    ~execution_stream();  // an unfinished execution is cancelled and drained first

    // The next output chunk. Returns nullopt when the execution finished, when `wait_until`
    // passed, or when wake() was called; check finished() to tell which.
    std::optional<output_chunk> next(std::chrono::steady_clock::time_point wait_until =
                                         std::chrono::steady_clock::time_point::max());
    bool finished() const { return finished_; }

    // After finished(): the result, or throws execution_error, execution_timeout or
    // kernel_died_error.
    execution_result finish();

    // Suspends and resumes the timeout clock, e.g. while a tool call waits for approval.
    // Thread-safe.
    void pause_timeout();
    void resume_timeout();
    // Makes a blocked next() return nullopt early. Thread-safe.
    void wake();

  private:
    friend class kernel_session;
    enum class phase { running, interrupting, done };
    enum class stop_reason { none, timeout, cancel };

    execution_stream(kernel_session& session, core::ticket_turn turn,
                     std::shared_ptr<kernel_instance> kernel,
                     std::shared_ptr<pending_execution> pending,
                     std::optional<std::chrono::milliseconds> timeout,
                     std::vector<std::string> notices);
    void request_cancel();
    void begin_interrupt(stop_reason reason);
    void complete();
    std::string limit_hint(const error_output& error);
    std::optional<output_chunk> handle(kernel_event& event);

    kernel_session& session_;
    core::ticket_turn turn_;  // the session's execution slot, passed on when this one ends
    std::shared_ptr<kernel_instance> kernel_;
    std::shared_ptr<pending_execution> pending_;
    std::optional<std::chrono::milliseconds> timeout_;
    output_collector collector_;

    std::mutex clock_mutex_;  // guards deadline_, paused_at_
    std::optional<std::chrono::steady_clock::time_point> deadline_;
    std::optional<std::chrono::steady_clock::time_point> paused_at_;
    std::atomic<bool> cancel_requested_{false};

    phase phase_ = phase::running;
    stop_reason stop_reason_ = stop_reason::none;
    std::chrono::steady_clock::time_point interrupt_deadline_{};
    bool finished_ = false;
    bool replied_ = false;
    bool idle_ = false;
    bool restarted_ = false;
    std::optional<kernel_died> died_;
    std::optional<error_output> error_;
    execute_reply reply_;
    std::chrono::steady_clock::time_point replied_at_;
    std::optional<long long> idle_micros_;
    std::vector<std::string> notices_;
};

class kernel_session {
  public:
    explicit kernel_session(session_options options);
    ~kernel_session();

    kernel_session(const kernel_session&) = delete;
    kernel_session& operator=(const kernel_session&) = delete;

    // Starts the kernel and waits until it is ready; then starts the spare in the background.
    // Throws kernel_start_error. Calling it again is a no-op.
    void start();

    // Queues `code` behind any running execution and returns its stream. Starts (or replaces
    // a dead) kernel first if needed; throws kernel_start_error if that fails.
    std::unique_ptr<execution_stream> execute(const std::string& code,
                                              std::optional<std::chrono::milliseconds> timeout);
    // execute() and consume to the end.
    execution_result run(const std::string& code,
                         std::optional<std::chrono::milliseconds> timeout = std::nullopt);

    // Interrupts the running execution, which then finishes as cancelled. No-op when idle.
    void cancel();
    // A fresh kernel. Waits for the running execution (cancel() it first to stop it).
    void reset();
    // Shuts every kernel down. The session cannot be used afterwards.
    void stop();

    // The current kernel's pid (0 if none), for diagnostics and tests.
    int kernel_pid() const;
    const session_options& options() const { return options_; }

  private:
    friend class execution_stream;
    std::shared_ptr<kernel_instance> start_kernel() const;
    std::shared_ptr<kernel_instance> ensure_kernel(std::vector<std::string>& notices);
    void replace_kernel();                                 // state_mutex_ held by caller
    void start_spare();                                    // state_mutex_ held by caller
    void retire(std::shared_ptr<kernel_instance> kernel);  // state_mutex_ held by caller
    void release(execution_stream* stream);                // passes the stream's turn on

    session_options options_;
    core::ticket_lock execution_slot_;  // executions and resets, in call order
    mutable std::mutex state_mutex_;
    std::shared_ptr<kernel_instance> current_;
    std::optional<std::future<std::shared_ptr<kernel_instance>>> spare_;
    std::vector<std::future<void>> retiring_;
    execution_stream* running_ = nullptr;
    bool stopped_ = false;
};

}  // namespace ipybox::kernel
