#include "ipybox/kernel/shared_kernel_template.hpp"

#include <mutex>
#include <optional>

#include "ipybox/core/log.hpp"
#include "path_stamps.hpp"
#include "template_holder.hpp"

namespace ipybox::kernel {
kernel_launch shared_template_launch(const kernel_launch& launch) {
    kernel_launch shared = launch;
    for (const auto& name : launch.own_variables) shared.environment.erase(name);
    shared.own_variables.clear();
    if (const auto path = shared.environment.find("PYTHONPATH"); path != shared.environment.end()) {
        std::string kept;  // without the working directory's entries (nor empty ones)
        for (const auto& entry : detail::path_entries(path->second)) {
            if (!detail::inside(entry, launch.working_directory)) {
                kept += (kept.empty() ? "" : ":") + entry;
            }
        }
        if (kept.empty()) {
            shared.environment.erase(path);
        } else {
            path->second = kept;
        }
    }
    // Never a session's folder: the template's cwd is nobody's workspace.
    shared.working_directory = launch.runtime_directory;
    shared.containment.reset();  // the template is uncontained; its children are not
    shared.limits = {};
    return shared;
}

std::string template_compatibility(const kernel_launch& a, const kernel_launch& b) {
    if (a.wrap || b.wrap) return "sandboxed kernels keep a template of their own";
    const auto x = shared_template_launch(a);
    const auto y = shared_template_launch(b);
    if (x.python != y.python) return "another interpreter";
    if (x.runtime_directory != y.runtime_directory) return "another runtime folder";
    if (x.runtime_base != y.runtime_base) return "another folder for private directories";
    if (x.transport != y.transport) return "another transport";
    if (x.io != y.io) return "another event loop";
    if (x.environment != y.environment) {
        for (const auto& [name, value] : x.environment) {
            const auto other = y.environment.find(name);
            if (other == y.environment.end() || other->second != value) {
                return "another value of " + name;
            }
        }
        for (const auto& [name, value] : y.environment) {
            if (!x.environment.count(name)) return "another value of " + name;
        }
    }
    return {};
}

struct shared_kernel_template::state {
    std::chrono::milliseconds start_timeout;
    std::mutex mutex;
    std::optional<kernel_launch> first;  // the launch of the first session that asked
    std::shared_ptr<detail::template_holder> holder;
    bool stopped = false;
};

shared_kernel_template::shared_kernel_template(std::chrono::milliseconds start_timeout)
    : state_(std::make_unique<state>()) {
    state_->start_timeout = start_timeout;
}

shared_kernel_template::~shared_kernel_template() {
    stop();
}

void shared_kernel_template::stop() {
    std::shared_ptr<detail::template_holder> holder;
    {
        std::lock_guard lock(state_->mutex);
        state_->stopped = true;
        holder = state_->holder;
    }
    if (!holder) return;
    holder->abandon_starts();
    holder->stop();
}

std::string shared_kernel_template::cold_reason() const {
    std::lock_guard lock(state_->mutex);
    if (state_->stopped) return "the shared kernel template was stopped";
    return state_->holder ? state_->holder->cold_reason() : std::string();
}

int shared_kernel_template::pid() const {
    std::lock_guard lock(state_->mutex);
    return state_->holder ? state_->holder->template_pid() : 0;
}

std::shared_ptr<detail::template_holder> shared_kernel_template::holder_for(
    const kernel_launch& launch, std::string& why_not) {
    std::lock_guard lock(state_->mutex);
    if (state_->stopped) {
        why_not = "the shared kernel template was stopped";
        return nullptr;
    }
    if (!state_->first) {
        if (launch.wrap) {
            why_not = "sandboxed kernels keep a template of their own";
            return nullptr;
        }
        state_->first = launch;
        state_->holder = std::make_shared<detail::template_holder>(
            shared_template_launch(launch), state_->start_timeout, std::string(), /*shared=*/true);
        return state_->holder;
    }
    why_not = template_compatibility(*state_->first, launch);
    return why_not.empty() ? state_->holder : nullptr;
}

}  // namespace ipybox::kernel
