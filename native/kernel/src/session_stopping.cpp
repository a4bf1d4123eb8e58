// How a session stops: starts under way abandoned, the queue ended, every kernel retired
// (session_core.hpp has the order of the steps).
#include <future>

#include "ipybox/core/work_pool.hpp"
#include "session_core.hpp"

namespace ipybox::kernel::detail {

void session_core::begin_stopping() {
    // A shared template's start is its other sessions' too: this one's start gives up once it
    // returns (watch_start), at worst after the imports.
    if (!templates_->shared()) templates_->abandon_starts();
    std::lock_guard lock(stopping_mutex_);
    stopping_ = true;
    for (const auto& starting : starting_kernels_) {
        if (const auto kernel = starting.lock()) kernel->abandon_start();
    }
}

bool session_core::stopping() const {
    std::lock_guard lock(stopping_mutex_);
    return stopping_;
}

void session_core::watch_start(const std::shared_ptr<kernel_instance>& kernel) {
    std::lock_guard lock(stopping_mutex_);
    if (stopping_) kernel->abandon_start();
    starting_kernels_.push_back(kernel);
}

void session_core::end_watch(const std::shared_ptr<kernel_instance>& kernel) {
    std::lock_guard lock(stopping_mutex_);
    std::erase_if(starting_kernels_, [&](const std::weak_ptr<kernel_instance>& entry) {
        const auto held = entry.lock();
        return !held || held == kernel;
    });
}

void session_core::stop_on_strand() {
    if (io_.stopped()) return stop_now();  // nothing runs the strand any more
    std::promise<void> stopped;
    on_strand([this, &stopped] {
        stop_now();
        stopped.set_value();
    });
    stopped.get_future().wait();
}

// Whatever runs ends as after a kernel death, whatever waits ends without running, and the
// kernels go to the pool to be shut down (which stop() then joins).
void session_core::stop_now() {
    if (state_ == session_state::stopped) return;
    state_ = session_state::stopped;
    ++timer_generation_;
    timer_.cancel();
    calm_timer_.cancel();
    auto queue = std::move(queue_);
    queue_.clear();
    const auto failure =
        std::make_exception_ptr(kernel_start_error("the kernel session was stopped"));
    for (auto& op : queue) {
        if (auto* entry = std::get_if<std::shared_ptr<queued_execution>>(&op)) {
            auto& execution = **entry;
            if (execution.ended) continue;
            if (!execution.started) {
                end_unstarted(execution, execution_record::not_run::session_stopped,
                              "the kernel session was stopped");
                continue;
            }
            for (auto& event : execution.held) execution.channel->events.push(std::move(event));
            execution.channel->events.push(kernel_died{"shut down"});
            execution.ended = true;
            execution.channel->events.push(execution_ended{});
        } else if (auto* reset = std::get_if<queued_reset>(&op)) {
            if (reset->done) reset->done(failure);
        } else {
            std::get<queued_start>(op).done(failure);
        }
    }
    retire(std::move(current_));
    current_.reset();
    for (auto& spare : spares_) retire(std::move(spare));
    spares_.clear();
    publish_spares();
    pid_ = 0;
    blocking_work_ = nullptr;
}

std::vector<std::shared_ptr<kernel_instance>> session_core::take_leftovers() {
    std::lock_guard lock(stopping_mutex_);
    return std::exchange(leftovers_, {});
}

}  // namespace ipybox::kernel::detail
