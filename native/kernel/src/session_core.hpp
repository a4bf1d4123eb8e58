#pragma once
// The strand side of a kernel_session (private to the kernel module): the queue of operations,
// the state machine kernel_session.hpp draws, the kernels (current and spares) and the timer.
// Members below `strand_` are touched only on the strand; the public methods post onto it and may
// be called from any thread (session_queue.cpp: the queue and executions; session_kernels.cpp:
// getting, replacing and retiring kernels, and stopping).
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ipybox/core/log.hpp"
#include "ipybox/kernel/kernel_session.hpp"
#include "template_holder.hpp"

namespace ipybox::kernel::detail {

using clock = std::chrono::steady_clock;

// What the strand recorded about how an execution ended, before its end marker is queued; its
// stream reads it after the marker and makes the execution_outcome from it.
struct execution_record {
    enum class stop_reason { none, timeout, cancel };
    // refused: kernel_session::execute() ended it before it was queued.
    enum class not_run { no, withdrawn, start_failed, kernel_lost, session_stopped, refused };
    stop_reason stopped_by = stop_reason::none;
    bool restarted = false;  // it ignored the interrupt; its kernel was retired
    not_run never_ran = not_run::no;
    std::string reason;  // why it never ran
    std::vector<std::string> notices;
    std::shared_ptr<kernel_instance> kernel;  // the kernel it ran in (for limit hints)
};

// One execution, shared by the strand and the execution's stream.
struct queued_execution {
    std::string code;
    std::optional<std::chrono::milliseconds> timeout;
    std::function<void()> on_start;
    std::shared_ptr<pending_execution> channel = std::make_shared<pending_execution>();
    execution_record outcome;

    // Strand only.
    bool started = false;
    bool ended = false;
    bool released = false;
    bool replied = false;
    bool idle = false;
    // The reply, idle status and death, held until the end: the stream needs them only then, and
    // gets them with the end marker in one wake-up.
    std::vector<kernel_event> held;
    clock::time_point replied_at{};
    clock::time_point interrupt_deadline{};

    // The timeout clock: paused and resumed from any thread (while a tool call waits for
    // approval) without a visit to the strand, whose timer reads it.
    std::mutex clock_mutex;
    std::optional<clock::time_point> deadline;
    std::optional<clock::time_point> paused_at;
    bool parked = false;  // the timer found the clock paused and stopped: resume arms it again
};

using completion = std::function<void(std::exception_ptr)>;

struct queued_reset {
    std::function<void()> on_turn;
    completion done;
    bool hook_started = false;
    bool hook_done = false;
    bool old_ending = false;  // the kernel it replaces is being ended (end_now, on the pool)
    bool old_ended = false;
    bool swapped = false;
};

struct queued_start {
    completion done;
};

using operation = std::variant<std::shared_ptr<queued_execution>, queued_reset, queued_start>;

enum class session_state { idle, starting, executing, interrupting, ending, resetting, stopped };

class session_core : public std::enable_shared_from_this<session_core> {
  public:
    session_core(session_options options, core::work_pool& blocking_work);

    const session_options& options() const { return options_; }
    int kernel_pid() const { return pid_.load(); }
    std::string cold_start_reason() const { return templates_->cold_reason(); }
    kernel_session::spare_kernels spares() const { return {ready_spares_, starting_spares_}; }

    // Throws std::logic_error naming `call` on a thread that runs the session's loop.
    void refuse_on_loop(const char* call) const;

    // Messages to the strand; any thread.
    void submit(operation op);
    void submit_start_check(completion done);  // done at once if a live kernel is there
    void cancel_running();
    void cancel(const std::shared_ptr<queued_execution>& entry);
    void release(const std::shared_ptr<queued_execution>& entry);
    void pause_timeout(const std::shared_ptr<queued_execution>& entry);
    void resume_timeout(const std::shared_ptr<queued_execution>& entry);

    // Streams not yet released (counted on the consumers' threads).
    void stream_opened();
    void stream_released();
    bool wait_streams_released(std::chrono::milliseconds timeout);

    // Stopping, in this order, from outside the loop: begin_stopping() (job results from here on
    // are kept for stop instead of going to the strand), stop_on_strand() (waits: the queue and
    // the kernels are ended there), then, once the pool is joined, take_leftovers() to shut down.
    void begin_stopping();
    bool stopping() const;
    void stop_on_strand();
    std::vector<std::shared_ptr<kernel_instance>> take_leftovers();
    // Ends the session's own template; a shared one goes on for its other sessions.
    void stop_templates() {
        if (!templates_->shared()) templates_->stop();
    }

  private:
    template <typename Handler>
    void on_strand(Handler handler);
    // The template `options` shares when it can, else one of the session's own.
    static std::shared_ptr<template_holder> templates_for(const session_options& options);

    // session_queue.cpp
    void pump();
    bool run_execution(const std::shared_ptr<queued_execution>& entry);
    bool run_reset(queued_reset& reset);
    void on_progress(const std::shared_ptr<queued_execution>& entry, kernel_event event,
                     execution_progress what);
    void cancel_on_strand(queued_execution& entry);
    void begin_interrupt(queued_execution& entry, execution_record::stop_reason reason);
    void on_timer();
    void arm_timer();
    void end_running(queued_execution& entry);
    void end_unstarted(queued_execution& entry, execution_record::not_run why, std::string reason);
    void finish_head();
    void drop_queued_after_loss(const std::string& reason);
    bool is_head(const queued_execution& entry) const;

    // session_kernels.cpp
    std::shared_ptr<kernel_instance> start_kernel(bool spare);
    // Kernels being started on the pool, which begin_stopping() abandons (stopping_mutex_).
    std::vector<std::weak_ptr<kernel_instance>> starting_kernels_;
    void watch_start(const std::shared_ptr<kernel_instance>& kernel);
    void end_watch(const std::shared_ptr<kernel_instance>& kernel);
    bool have_live_kernel() const;
    bool acquire_kernel();
    void start_job(bool spare);
    void on_current_started(std::shared_ptr<kernel_instance> kernel,
                            const std::exception_ptr& failure);
    void on_spare_started(std::shared_ptr<kernel_instance> kernel,
                          const std::exception_ptr& failure);
    void use_as_current(std::shared_ptr<kernel_instance> kernel);
    void start_spare();
    void publish_spares();  // after spares_ or spares_starting_ changed
    // While two spares are kept: once no head has taken a kernel for back_to_back_within, one
    // is kept again and a ready spare past it is retired (so that a session at rest holds one).
    void watch_for_calm();
    void keep_spares(std::size_t count);
    void retire(std::shared_ptr<kernel_instance> kernel);
    void run_hook(queued_reset& reset);
    void hook_finished();
    // Ends `old` (end_now) on the pool, then old_kernel_ended() on the strand: the reset goes on.
    void end_for_reset(std::shared_ptr<kernel_instance> old);
    void old_kernel_ended();
    bool usable_spare(const kernel_instance& kernel) const;
    void fail_head(const std::exception_ptr& failure);
    void stop_now();
    // Posts `handler` to the strand; while stopping, keeps `kernel` for stop() instead.
    void deliver(std::function<void()> handler, std::shared_ptr<kernel_instance> kernel);

    const session_options options_;
    // The session's own template, or the one it shares (session_options::shared_template).
    const std::shared_ptr<template_holder> templates_;
    core::work_pool* blocking_work_;  // null once stopped
    boost::asio::io_context& io_;
    std::atomic<int> pid_{0};

    mutable std::mutex stopping_mutex_;  // guards stopping_, leftovers_, open_streams_,
                                         // starting_kernels_
    std::condition_variable streams_changed_;
    bool stopping_ = false;
    std::vector<std::shared_ptr<kernel_instance>> leftovers_;
    std::size_t open_streams_ = 0;

    boost::asio::strand<boost::asio::io_context::executor_type> strand_;
    boost::asio::steady_timer timer_;
    std::uint64_t timer_generation_ = 0;
    boost::asio::steady_timer calm_timer_;  // ends the two spares' time (watch_for_calm)
    session_state state_ = session_state::idle;
    std::deque<operation> queue_;
    std::shared_ptr<kernel_instance> current_;
    // Ready spares, oldest first, and how many are starting. One is kept; two while resets come
    // back to back (see acquire_kernel).
    std::deque<std::shared_ptr<kernel_instance>> spares_;
    std::size_t spares_starting_ = 0;
    std::size_t spare_target_ = 1;
    clock::time_point last_acquired_{};         // when the last head took a kernel (acquire_kernel)
    std::atomic<std::size_t> ready_spares_{0};  // spares_.size(), for other threads
    std::atomic<std::size_t> starting_spares_{0};  // spares_starting_, for other threads
    bool waiting_for_spare_ = false;
};

template <typename Handler>
void session_core::on_strand(Handler handler) {
    boost::asio::post(strand_, [self = shared_from_this(), handler = std::move(handler)]() mutable {
        try {
            handler();
        } catch (const std::exception& e) {
            core::logger("kernel")->error("the kernel session's queue failed: {}", e.what());
        }
    });
}

}  // namespace ipybox::kernel::detail
