// The queue of a kernel session and the life of an execution on the strand: its turn, the
// kernel's replies, the timeout and the interrupt, its end.
#include <algorithm>
#include <boost/asio/bind_executor.hpp>

#include "ipybox/core/log.hpp"
#include "session_core.hpp"

namespace ipybox::kernel::detail {
namespace {

// How long the idle status may lag behind the execute reply before it counts as lost.
constexpr auto idle_grace = std::chrono::seconds(5);

queued_execution* execution_at(operation& op) {
    auto* entry = std::get_if<std::shared_ptr<queued_execution>>(&op);
    return entry ? entry->get() : nullptr;
}

}  // namespace

// The template the session shares when it can, else its own.
std::shared_ptr<template_holder> session_core::templates_for(const session_options& options) {
    if (options.shared_template && options.fork_kernels) {
        std::string why_not;
        if (auto shared = options.shared_template->holder_for(options.launch, why_not)) {
            return shared;
        }
        core::logger("kernel")->info("this session keeps a kernel template of its own: {}",
                                     why_not);
    }
    return std::make_shared<template_holder>(
        options.launch, options.start_timeout,
        options.fork_kernels ? std::string() : options.fork_disabled_reason);
}

session_core::session_core(session_options options, core::work_pool& blocking_work)
    : options_(std::move(options)),
      templates_(templates_for(options_)),
      blocking_work_(&blocking_work),
      io_(*options_.launch.io),
      strand_(boost::asio::make_strand(io_)),
      timer_(strand_),
      calm_timer_(strand_) {}

void session_core::refuse_on_loop(const char* call) const {
    if (!io_.get_executor().running_in_this_thread()) return;
    throw std::logic_error(std::string(call) +
                           " was called on a thread that runs the kernel session's event loop. "
                           "It waits for work that this thread must do, so it would never "
                           "return; call it from another thread.");
}

void session_core::submit(operation op) {
    on_strand([this, op = std::move(op)]() mutable {
        if (state_ != session_state::stopped) {
            queue_.push_back(std::move(op));
            pump();
        } else if (auto* entry = execution_at(op)) {
            end_unstarted(*entry, execution_record::not_run::session_stopped,
                          "the kernel session was stopped");
        } else {
            const auto failure =
                std::make_exception_ptr(kernel_start_error("the kernel session was stopped"));
            std::visit(
                [&](auto& other) {
                    if constexpr (!std::is_same_v<std::decay_t<decltype(other)>,
                                                  std::shared_ptr<queued_execution>>) {
                        if (other.done) other.done(failure);
                    }
                },
                op);
        }
    });
}

void session_core::submit_start_check(completion done) {
    on_strand([this, done = std::move(done)]() mutable {
        if (state_ == session_state::stopped) {
            return done(
                std::make_exception_ptr(kernel_start_error("the kernel session was stopped")));
        }
        if (have_live_kernel()) return done(nullptr);
        queue_.push_back(queued_start{std::move(done)});
        pump();
    });
}

// Runs the operations at the head until one is under way (state_ leaves idle) or none is left.
void session_core::pump() {
    while (state_ == session_state::idle && !queue_.empty()) {
        auto& head = queue_.front();
        if (auto* entry = std::get_if<std::shared_ptr<queued_execution>>(&head)) {
            if (!run_execution(std::shared_ptr<queued_execution>(*entry))) return;
        } else if (auto* reset = std::get_if<queued_reset>(&head)) {
            if (!run_reset(*reset)) return;
        } else {
            if (!have_live_kernel() && !acquire_kernel()) {
                state_ = session_state::starting;
                return;
            }
            auto done = std::move(std::get<queued_start>(head).done);
            queue_.pop_front();
            done(nullptr);
        }
    }
}

// False while the execution is under way; true once it left the queue.
bool session_core::run_execution(const std::shared_ptr<queued_execution>& entry) {
    if (entry->ended) {  // cancelled while it waited for its kernel
        queue_.pop_front();
        return true;
    }
    if (current_ && !current_->alive()) {
        core::logger("kernel")->debug("kernel {} is dead: {}", current_->pid(),
                                      current_->exit_reason());
        entry->outcome.notices.push_back(
            "The previous kernel died (" + current_->exit_reason() +
            "); this code ran in a fresh kernel, so variables, imports and definitions from "
            "before are gone.");
        retire(std::move(current_));
        current_.reset();
        pid_ = 0;
    }
    if (!current_ && !acquire_kernel()) {
        state_ = session_state::starting;
        return false;
    }
    state_ = session_state::executing;
    entry->started = true;
    entry->outcome.kernel = current_;
    if (entry->timeout) {
        std::lock_guard lock(entry->clock_mutex);
        entry->deadline = clock::now() + *entry->timeout;
    }
    if (entry->on_start) {
        try {
            entry->on_start();
        } catch (const std::exception& e) {
            core::logger("kernel")->error("an execution's start hook failed: {}", e.what());
        }
    }
    entry->channel->events.push(execution_started{});
    std::weak_ptr<session_core> weak_core = weak_from_this();
    std::weak_ptr<queued_execution> weak_entry = entry;
    entry->channel->on_progress = [weak_core, weak_entry](kernel_event event,
                                                          execution_progress what) {
        if (auto core = weak_core.lock()) {
            core->on_strand([core, weak_entry, event = std::move(event), what]() mutable {
                if (auto running = weak_entry.lock()) {
                    core->on_progress(running, std::move(event), what);
                }
            });
        }
    };
    current_->execute(entry->code, entry->channel);
    arm_timer();
    return false;
}

bool session_core::is_head(const queued_execution& entry) const {
    if (queue_.empty()) return false;
    const auto* head = std::get_if<std::shared_ptr<queued_execution>>(&queue_.front());
    return head && head->get() == &entry;
}

void session_core::on_progress(const std::shared_ptr<queued_execution>& entry, kernel_event event,
                               execution_progress what) {
    if (!is_head(*entry) || !entry->started || entry->ended) return;  // a late event
    entry->held.push_back(std::move(event));
    if (what == execution_progress::died) {
        drop_queued_after_loss("the kernel died while an earlier execution ran (" +
                               entry->outcome.kernel->exit_reason() + ")");
        return end_running(*entry);
    }
    if (what == execution_progress::replied) {
        entry->replied = true;
        entry->replied_at = clock::now();
    } else {
        entry->idle = true;
    }
    if (entry->replied && entry->idle) return end_running(*entry);
    arm_timer();
}

void session_core::cancel_running() {
    on_strand([this] {
        if (state_ != session_state::executing) return;
        if (auto* entry = execution_at(queue_.front())) {
            begin_interrupt(*entry, execution_record::stop_reason::cancel);
        }
    });
}

void session_core::cancel(const std::shared_ptr<queued_execution>& entry) {
    on_strand([this, entry] { cancel_on_strand(*entry); });
}

void session_core::cancel_on_strand(queued_execution& entry) {
    if (entry.ended || state_ == session_state::stopped) return;
    if (!is_head(entry)) {  // waiting in the queue: it leaves it
        std::erase_if(queue_, [&](operation& op) { return execution_at(op) == &entry; });
        return end_unstarted(entry, execution_record::not_run::withdrawn, "");
    }
    if (!entry.started) {  // waiting for its kernel: ended now, leaves when the start ends
        return end_unstarted(entry, execution_record::not_run::withdrawn, "");
    }
    if (state_ == session_state::executing) {
        begin_interrupt(entry, execution_record::stop_reason::cancel);
    }
}

void session_core::release(const std::shared_ptr<queued_execution>& entry) {
    on_strand([this, entry] {
        entry->released = true;
        // A running execution ends later, as cancelled; being released, it then leaves at once.
        if (!entry->ended) return cancel_on_strand(*entry);
        if (is_head(*entry) && state_ == session_state::ending) finish_head();
    });
}

void session_core::pause_timeout(const std::shared_ptr<queued_execution>& entry) {
    std::lock_guard lock(entry->clock_mutex);
    if (!entry->paused_at) entry->paused_at = clock::now();
}

void session_core::resume_timeout(const std::shared_ptr<queued_execution>& entry) {
    bool rearm = false;
    {
        std::lock_guard lock(entry->clock_mutex);
        if (!entry->paused_at) return;
        if (entry->deadline) *entry->deadline += clock::now() - *entry->paused_at;
        entry->paused_at.reset();
        rearm = std::exchange(entry->parked, false);
    }
    if (rearm) {
        on_strand([this, entry] {
            if (is_head(*entry) && !entry->ended) arm_timer();
        });
    }
}

void session_core::begin_interrupt(queued_execution& entry, execution_record::stop_reason reason) {
    if (entry.replied) return;  // the code is over; only its idle status is still due
    state_ = session_state::interrupting;
    entry.outcome.stopped_by = reason;
    entry.interrupt_deadline = clock::now() + options_.interrupt_grace;
    entry.outcome.kernel->interrupt();
    arm_timer();
}

// One timer serves the execution at the head: its deadline, its interrupt's grace or the wait
// for its idle status, whichever applies now. A generation number retires waits set before.
void session_core::arm_timer() {
    ++timer_generation_;
    timer_.cancel();
    if (queue_.empty()) return;
    auto* entry = execution_at(queue_.front());
    if (!entry || !entry->started || entry->ended) return;
    std::optional<clock::time_point> at;
    if (entry->replied) {
        at = std::max(entry->replied_at, entry->channel->last_output.load()) + idle_grace;
    } else if (state_ == session_state::interrupting) {
        at = entry->interrupt_deadline;
    } else {
        std::lock_guard lock(entry->clock_mutex);
        if (entry->deadline && entry->paused_at) {
            entry->parked = true;
        } else {
            at = entry->deadline;
        }
    }
    if (!at) return;
    timer_.expires_at(*at);
    timer_.async_wait(boost::asio::bind_executor(
        strand_, [self = shared_from_this(),
                  generation = timer_generation_](const boost::system::error_code& error) {
            if (error || generation != self->timer_generation_) return;
            try {
                self->on_timer();
            } catch (const std::exception& e) {
                core::logger("kernel")->error("the kernel session's timer failed: {}", e.what());
            }
        }));
}

void session_core::on_timer() {
    auto* entry = queue_.empty() ? nullptr : execution_at(queue_.front());
    if (!entry || !entry->started || entry->ended) return;
    const auto now = clock::now();
    if (entry->replied) {
        // Output still arriving after the reply (a cell that printed megabytes on a busy
        // machine: its IOPub queue drains after the shell reply) is waited for, idle_grace from
        // the last of it.
        const auto quiet_since = std::max(entry->replied_at, entry->channel->last_output.load());
        if (now < quiet_since + idle_grace) return arm_timer();
        // The reply is in but the idle status never came, nor output for idle_grace: IOPub is
        // publish/subscribe, and a kernel whose send queue overflowed drops messages. The
        // execution is over anyway.
        entry->outcome.notices.push_back(
            "The kernel's output channel lost messages (it produced output faster than it "
            "could be delivered); some output of this cell may be missing.");
        return end_running(*entry);
    }
    if (state_ == session_state::interrupting) {
        if (now < entry->interrupt_deadline) return arm_timer();
        // The code ignored the interrupt. Only a new kernel gets the session back.
        core::logger("kernel")->warn("kernel {} did not stop when interrupted; restarting it",
                                     entry->outcome.kernel->pid());
        entry->outcome.restarted = true;
        if (current_ == entry->outcome.kernel) {
            retire(std::move(current_));
            current_.reset();
            pid_ = 0;
        }
        drop_queued_after_loss(
            "the kernel was restarted because an earlier execution did not stop when "
            "interrupted");
        return end_running(*entry);
    }
    bool due = false;
    {
        std::lock_guard lock(entry->clock_mutex);
        if (!entry->deadline) return;
        if (entry->paused_at) {
            entry->parked = true;
            return;
        }
        due = now >= *entry->deadline;
    }
    if (due) return begin_interrupt(*entry, execution_record::stop_reason::timeout);
    arm_timer();  // the deadline moved on while the clock was paused
}

void session_core::end_running(queued_execution& entry) {
    entry.ended = true;
    state_ = session_state::ending;
    ++timer_generation_;
    timer_.cancel();
    for (auto& event : entry.held) entry.channel->events.push(std::move(event));
    entry.held.clear();
    entry.channel->events.push(execution_ended{});
    if (entry.released) finish_head();
}

void session_core::end_unstarted(queued_execution& entry, execution_record::not_run why,
                                 std::string reason) {
    entry.ended = true;
    entry.outcome.never_ran = why;
    entry.outcome.reason = std::move(reason);
    entry.channel->events.push(execution_ended{});
}

void session_core::finish_head() {
    queue_.pop_front();
    state_ = session_state::idle;
    pump();
}

// The executions queued behind the head, up to the next reset, were written for the state the
// kernel held; it is gone, so they end without running.
void session_core::drop_queued_after_loss(const std::string& reason) {
    for (auto it = std::next(queue_.begin()); it != queue_.end();) {
        if (std::holds_alternative<queued_reset>(*it)) break;
        auto* entry = execution_at(*it);
        if (!entry) {
            ++it;
            continue;
        }
        end_unstarted(*entry, execution_record::not_run::kernel_lost, reason);
        it = queue_.erase(it);
    }
}

void session_core::stream_opened() {
    std::lock_guard lock(stopping_mutex_);
    ++open_streams_;
}

void session_core::stream_released() {
    {
        std::lock_guard lock(stopping_mutex_);
        --open_streams_;
    }
    streams_changed_.notify_all();
}

bool session_core::wait_streams_released(std::chrono::milliseconds timeout) {
    std::unique_lock lock(stopping_mutex_);
    return streams_changed_.wait_for(lock, timeout, [this] { return open_streams_ == 0; });
}

}  // namespace ipybox::kernel::detail
