#include "template_holder.hpp"

#include "fork_support.hpp"
#include "ipybox/core/log.hpp"
#include "kernel_template.hpp"

namespace ipybox::kernel::detail {

template_holder::template_holder(kernel_launch launch, std::chrono::milliseconds start_timeout,
                                 std::string disabled_reason, bool shared)
    : launch_(std::move(launch)),
      shared_(shared),
      start_timeout_(start_timeout),
      cold_reason_(std::move(disabled_reason)) {
    // Children of the template are watched through pidfds: without them, no template at all.
    if (const auto obstacle = platform_fork_obstacle(); !obstacle.empty() && cold_reason_.empty()) {
        cold_reason_ = obstacle;
    }
    // A sandboxed session's template runs inside a sandbox made for it, and its kernels share
    // it (kernel_template.hpp): that needs the settings a cold kernel would get, to tell when
    // the template's are out of date, and scratch folders for each kernel.
    if (launch_.wrap && (!launch_.sandbox_settings || !launch_.sandbox_scratch) &&
        cold_reason_.empty()) {
        cold_reason_ = "sandboxed kernels start cold: the sandbox cannot be shared";
    }
}

template_holder::~template_holder() = default;

std::string template_holder::cold_reason() const {
    std::lock_guard lock(mutex_);
    return cold_reason_;
}

bool template_holder::forking() const {
    std::lock_guard lock(mutex_);
    return cold_reason_.empty() && template_ && template_->usable();
}

void template_holder::abandon_starts() {
    *abandoned_ = true;
}

void template_holder::throw_if_abandoned() const {
    if (*abandoned_) throw kernel_start_error("the kernel session was stopped");
}

void template_holder::stop() {
    std::shared_ptr<kernel_template> ending;
    {
        std::lock_guard lock(mutex_);
        if (cold_reason_.empty()) cold_reason_ = "the session was stopped";
        ending = std::move(template_);
    }
}

// A start that failed for a reason that may pass (it timed out on a loaded machine, it ended
// early): this kernel starts cold, and the next spare tries a template again, until
// max_failed_starts in a row say it will not work here.
void template_holder::failed_start(const std::string& reason) {
    std::unique_lock lock(mutex_);
    if (++failed_starts_ < max_failed_starts) {
        lock.unlock();
        core::logger("kernel")->warn(
            "the kernel template did not start ({}); this kernel starts cold, the next spare tries "
            "again",
            reason);
        return;
    }
    lock.unlock();
    give_up("the kernel template did not start " + std::to_string(max_failed_starts) +
            " times in a row; the last time: " + reason);
}

void template_holder::give_up(const std::string& reason) {
    core::logger("kernel")->warn("kernels start cold from now on: {}", reason);
    std::lock_guard lock(mutex_);
    cold_reason_ = reason;
    template_.reset();
}

std::shared_ptr<kernel_template> template_holder::current(bool may_start) {
    {
        std::lock_guard lock(mutex_);
        if (!cold_reason_.empty()) return nullptr;
        if (template_ && template_->usable()) return template_;
        template_.reset();  // dead or stale; kernels it forked keep it while they run
    }
    if (!may_start) return nullptr;
    std::lock_guard start_lock(starting_);
    {
        std::lock_guard lock(mutex_);
        if (!cold_reason_.empty()) return nullptr;
        if (template_) return template_;
    }
    try {
        auto started = kernel_template::start(
            launch_, std::chrono::steady_clock::now() + start_timeout_, abandoned_);
        std::lock_guard lock(mutex_);
        template_ = started;
        failed_starts_ = 0;
        return started;
    } catch (const template_unavailable& e) {
        if (e.permanent()) {
            give_up(std::string("the kernel template cannot fork here (") + e.what() + ")");
        } else {
            failed_start(e.what());
        }
    } catch (const kernel_start_error& e) {
        throw_if_abandoned();  // not a failure of the template's: nobody wants it any more
        failed_start(e.what());
    }
    return nullptr;
}

std::unique_ptr<kernel_instance> template_holder::start_kernel(const kernel_launch& launch,
                                                               bool may_wait) {
    throw_if_abandoned();
    // A stale template is replaced once: the next one has just done its imports.
    for (int attempt = 0; attempt < 2; ++attempt) {
        const auto from = current(may_wait);
        if (!from) break;
        try {
            return kernel_instance::start(launch, from);
        } catch (const template_unsuitable& e) {
            core::logger("kernel")->info("this kernel starts cold: {}", e.what());
            break;
        } catch (const template_unavailable& e) {
            core::logger("kernel")->info("kernel template {} replaced: {}", from->pid(), e.what());
        }
    }
    throw_if_abandoned();
    return kernel_instance::start(launch);
}

std::unique_ptr<kernel_instance> template_holder::start_cold_after(const kernel_launch& launch,
                                                                   const std::string& failure) {
    throw_if_abandoned();
    bool again = false;
    if (shared_) {
        std::lock_guard lock(mutex_);
        again = ++failed_forks_ < max_failed_starts;
    }
    if (again) {
        core::logger("kernel")->warn(
            "a kernel forked from the shared template did not start ({}); it starts cold", failure);
    } else {
        give_up("a kernel forked from the template did not start: " + failure);
    }
    return kernel_instance::start(launch);
}

void template_holder::forked_kernel_ready() {
    std::lock_guard lock(mutex_);
    failed_forks_ = 0;
}

int template_holder::template_pid() const {
    std::lock_guard lock(mutex_);
    return template_ && template_->usable() ? template_->pid() : 0;
}

}  // namespace ipybox::kernel::detail
