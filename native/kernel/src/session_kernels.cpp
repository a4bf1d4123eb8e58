// The kernels of a session, on the strand: the current one and the spares, how the head of the
// queue gets a live kernel and how kernels are retired (how the session stops:
// session_stopping.cpp). Starting and shutting down kernels blocks, so it runs on the session's
// pool and reports back to the strand.
#include <sys/resource.h>

#include <boost/asio/bind_executor.hpp>

#include "ipybox/core/log.hpp"
#include "ipybox/core/work_pool.hpp"
#include "session_core.hpp"

namespace ipybox::kernel::detail {
namespace {

std::string message_of(const std::exception_ptr& failure) {
    try {
        std::rethrow_exception(failure);
    } catch (const std::exception& e) {
        return e.what();
    } catch (...) {
        return "unknown failure";
    }
}

}  // namespace

// A spare may wait for the template's imports (nobody waits for it); any other start takes the
// template if it is up, else starts cold at once. Once the session stops, a start in progress
// gives up at once (begin_stopping): its kernel is killed, not waited for.
std::shared_ptr<kernel_instance> session_core::start_kernel(bool spare) {
    const auto until_ready = [this](const std::shared_ptr<kernel_instance>& kernel) {
        watch_start(kernel);
        try {
            kernel->wait_ready(clock::now() + options_.start_timeout);
        } catch (const kernel_start_error&) {
            end_watch(kernel);
            throw;
        }
        end_watch(kernel);
    };
    // A shared template's imports are waited for by every start: they are done once for all
    // its sessions, and a forked kernel costs a fraction of a cold one's memory.
    std::shared_ptr<kernel_instance> kernel =
        templates_->start_kernel(options_.launch, spare || templates_->shared());
    try {
        until_ready(kernel);
        if (kernel->forked()) templates_->forked_kernel_ready();
    } catch (const kernel_start_error& e) {
        // A forked kernel that its own memory limit stopped says nothing of the template: a
        // cold one, whose pages are all its own, would need more.
        if (!kernel->forked() || stopping() || kernel->stopped_by_limit()) {
            if (stopping()) kernel->end_now();
            throw;
        }
        kernel = templates_->start_cold_after(options_.launch, e.what());
        try {
            until_ready(kernel);
        } catch (const kernel_start_error&) {
            if (stopping()) kernel->end_now();
            throw;
        }
    }
    core::logger("kernel")->debug("kernel {} ready ({}, {})", kernel->pid(),
                                  kernel->forked() ? "forked" : "cold",
                                  spare ? "spare" : "for now");
    return kernel;
}

bool session_core::have_live_kernel() const {
    return current_ && current_->alive();
}

void session_core::use_as_current(std::shared_ptr<kernel_instance> kernel) {
    retire(std::move(current_));  // a dead one: never destroyed here, on the loop
    current_ = std::move(kernel);
    pid_ = current_->pid();
}

// True when the head has a live kernel now (a spare); false when one is being started, after
// which the strand goes on with the head (or fails it).
//
// Resets back to back (an agent's loop: reset, a cell, reset) come faster than one forked kernel
// starts: the head would wait for each spare in turn. When a head finds the spare still starting
// while the template is up (so the wait is a fork's, not the template's imports), the session
// keeps two spares, which start side by side (a forked spare costs little memory: it shares its
// pages with the template). It keeps one again once a second passes without a head taking a
// kernel (watch_for_calm), or from the first head that comes a second or more after the one
// before.
bool session_core::acquire_kernel() {
    const auto now = clock::now();
    if (now - last_acquired_ >= options_.back_to_back_within) spare_target_ = 1;
    last_acquired_ = now;
    watch_for_calm();
    while (!spares_.empty()) {
        auto spare = std::move(spares_.front());
        spares_.pop_front();
        // A spare forked before a package was installed would not see it: replaced too. So is
        // one another process stopped, signalled, or whose limits or priorities it changed (a
        // sibling in the template's sandbox).
        if (usable_spare(*spare)) {
            use_as_current(std::move(spare));
            start_spare();
            publish_spares();
            return true;
        }
        retire(std::move(spare));
    }
    publish_spares();
    if (spares_starting_ > 0) {
        waiting_for_spare_ = true;
        if (templates_->forking()) {
            spare_target_ = 2;
            watch_for_calm();
        }
    } else {
        start_job(false);
    }
    return false;
}

void session_core::start_job(bool spare) {
    blocking_work_->post([self = shared_from_this(), spare] {
        std::shared_ptr<kernel_instance> kernel;
        std::exception_ptr failure;
        try {
            kernel = self->start_kernel(spare);
        } catch (...) {
            failure = std::current_exception();
        }
        self->deliver(
            [self, spare, kernel, failure] {
                if (spare) {
                    self->on_spare_started(kernel, failure);
                } else {
                    self->on_current_started(kernel, failure);
                }
            },
            kernel);
    });
}

void session_core::on_current_started(std::shared_ptr<kernel_instance> kernel,
                                      const std::exception_ptr& failure) {
    if (state_ == session_state::stopped) return retire(std::move(kernel));
    if (failure) return fail_head(failure);
    use_as_current(std::move(kernel));
    state_ = session_state::idle;
    pump();
    start_spare();  // after the head went on: a starting spare competes with it for the CPU
}

void session_core::on_spare_started(std::shared_ptr<kernel_instance> kernel,
                                    const std::exception_ptr& failure) {
    --spares_starting_;
    publish_spares();
    if (state_ == session_state::stopped) return retire(std::move(kernel));
    if (failure) {
        core::logger("kernel")->warn("the spare kernel failed to start: {}", message_of(failure));
    }
    // A spare forked just before a package was installed (or signalled since) arrives out of
    // date: it is no spare, and kept as one it would stop a fresh one from starting, so the head
    // after the next reset would start cold.
    if (kernel && !usable_spare(*kernel)) {
        retire(std::move(kernel));
        kernel.reset();
    }
    if (!waiting_for_spare_) {
        if (kernel) spares_.push_back(std::move(kernel));
        keep_spares(spare_target_);   // one more than kept, had calm come meanwhile
        if (!failure) start_spare();  // the one given up above, replaced
        return;
    }
    waiting_for_spare_ = false;
    if (!kernel) return start_job(false);
    use_as_current(std::move(kernel));
    state_ = session_state::idle;
    pump();
    start_spare();
}

// Alive, of the current packages and sandbox, and neither signalled nor changed by another
// process.
bool session_core::usable_spare(const kernel_instance& kernel) const {
    if (!kernel.alive() || kernel.outdated()) return false;
    if (const auto trouble = kernel.interfered_with(); !trouble.empty()) {
        core::logger("kernel")->warn("the spare kernel {} is not used: {}", kernel.pid(), trouble);
        return false;
    }
    return true;
}

// Starts spares until there are as many, ready or starting, as the session keeps.
void session_core::start_spare() {
    if (!options_.keep_spare || state_ == session_state::stopped) return;
    while (spares_.size() + spares_starting_ < spare_target_) {
        ++spares_starting_;
        start_job(true);
    }
    publish_spares();
}

void session_core::watch_for_calm() {
    if (spare_target_ < 2) return;
    calm_timer_.expires_at(last_acquired_ + options_.back_to_back_within);
    calm_timer_.async_wait(boost::asio::bind_executor(
        strand_, [self = shared_from_this()](const boost::system::error_code& error) {
            if (error || self->state_ == session_state::stopped) return;  // rearmed, or stopped
            if (clock::now() - self->last_acquired_ < self->options_.back_to_back_within) {
                return self->watch_for_calm();
            }
            self->spare_target_ = 1;
            self->keep_spares(1);
        }));
}

// Retires the ready spares past `count`, the newest first.
void session_core::keep_spares(std::size_t count) {
    while (spares_.size() > count) {
        retire(std::move(spares_.back()));
        spares_.pop_back();
    }
    publish_spares();
}

void session_core::publish_spares() {
    ready_spares_ = spares_.size();
    starting_spares_ = spares_starting_;
}

void session_core::retire(std::shared_ptr<kernel_instance> kernel) {
    if (!kernel) return;
    if (!blocking_work_) {  // stopped: stop() shuts it down
        std::lock_guard lock(stopping_mutex_);
        leftovers_.push_back(std::move(kernel));
        return;
    }
    // Its way out (atexit, the interpreter's teardown) gives way to the kernel that replaces it
    // and to the next spare, which compete with it for the CPU.
    if (kernel->alive()) ::setpriority(PRIO_PROCESS, static_cast<id_t>(kernel->pid()), 19);
    blocking_work_->post([kernel = std::move(kernel)] {
        try {
            kernel->shutdown(std::chrono::milliseconds(500));
        } catch (const std::exception& e) {
            core::logger("kernel")->warn("retiring kernel {} failed: {}", kernel->pid(), e.what());
        }
    });
}

void session_core::run_hook(queued_reset& reset) {
    blocking_work_->post([self = shared_from_this(), hook = reset.on_turn] {
        try {
            hook();
        } catch (const std::exception& e) {
            core::logger("kernel")->warn("a reset's hook failed: {}", e.what());
        }
        self->deliver([self] { self->hook_finished(); }, nullptr);
    });
}

void session_core::hook_finished() {
    if (state_ != session_state::resetting || queue_.empty()) return;
    if (auto* reset = std::get_if<queued_reset>(&queue_.front())) reset->hook_done = true;
    state_ = session_state::idle;
    pump();
}

// A reset at the head of the queue: its hook, then the kernel it gives up ended, then a fresh
// kernel. False while one of them is under way.
bool session_core::run_reset(queued_reset& reset) {
    if (reset.on_turn && !reset.hook_done) {
        if (!reset.hook_started) {
            reset.hook_started = true;
            run_hook(reset);
        }
        state_ = session_state::resetting;
        return false;
    }
    // The kernel given up is ended, with everything it started, before another is handed over:
    // while it runs it could still stop or kill the spare (in a sandbox they share a PID
    // namespace), which would then be handed over stopped or about to die.
    if (!reset.swapped && !reset.old_ended && current_ && current_->alive()) {
        if (!reset.old_ending) {
            reset.old_ending = true;
            end_for_reset(current_);
        }
        state_ = session_state::resetting;
        return false;
    }
    if (!reset.swapped) {
        reset.swapped = true;
        retire(std::move(current_));
        current_.reset();
        pid_ = 0;
        if (!acquire_kernel()) {
            state_ = session_state::resetting;
            return false;
        }
    }
    auto done = std::move(reset.done);
    queue_.pop_front();
    if (done) done(nullptr);
    return true;
}

void session_core::end_for_reset(std::shared_ptr<kernel_instance> old) {
    blocking_work_->post([self = shared_from_this(), old = std::move(old)] {
        old->end_now();
        self->deliver([self] { self->old_kernel_ended(); }, nullptr);
    });
}

void session_core::old_kernel_ended() {
    if (state_ != session_state::resetting || queue_.empty()) return;
    if (auto* reset = std::get_if<queued_reset>(&queue_.front())) reset->old_ended = true;
    state_ = session_state::idle;
    pump();
}

// No kernel for the head: it fails with the start's error, and the queue goes on (the next
// operation tries again).
void session_core::fail_head(const std::exception_ptr& failure) {
    auto head = std::move(queue_.front());
    queue_.pop_front();
    state_ = session_state::idle;
    if (auto* entry = std::get_if<std::shared_ptr<queued_execution>>(&head)) {
        if (!(*entry)->ended) {
            end_unstarted(**entry, execution_record::not_run::start_failed, message_of(failure));
        }
    } else if (auto* reset = std::get_if<queued_reset>(&head)) {
        if (reset->done) reset->done(failure);
    } else {
        std::get<queued_start>(head).done(failure);
    }
    pump();
}

void session_core::deliver(std::function<void()> handler, std::shared_ptr<kernel_instance> kernel) {
    std::lock_guard lock(stopping_mutex_);
    if (stopping_) {
        if (kernel) leftovers_.push_back(std::move(kernel));
        return;
    }
    on_strand(std::move(handler));
}

}  // namespace ipybox::kernel::detail
