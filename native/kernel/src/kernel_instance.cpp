#include "ipybox/kernel/kernel_instance.hpp"

#include <condition_variable>
#include <csignal>
#include <fstream>
#include <map>
#include <mutex>
#include <set>

#include "ipybox/core/log.hpp"
#include "ipybox/core/private_directory.hpp"
#include "ipybox/core/random.hpp"
#include "ipybox/jupyter/kernel_connection.hpp"
#include "ipybox/process/child_process.hpp"
#include "ipybox/process/signal_state.hpp"
#include "kernel_command.hpp"
#include "kernel_instance_state.hpp"
#include "kernel_messages.hpp"
#include "kernel_template.hpp"

namespace ipybox::kernel {
namespace {

using clock = std::chrono::steady_clock;
using detail::timestamp_of;
using detail::to_event;
using jupyter::channel;
using jupyter::message;

// How long to wait for the IOPub echo of an answered kernel_info_request before asking again,
// and for any answer at all before asking again (never on every poll: that livelocks the kernel).
constexpr auto iopub_echo_wait = std::chrono::milliseconds(250);
constexpr auto reply_wait = std::chrono::milliseconds(2000);
// How long a template may take to fork a kernel (it answers in milliseconds when it is well).
constexpr auto fork_wait = std::chrono::milliseconds(10000);

}  // namespace

kernel_instance::kernel_instance(std::unique_ptr<impl> state) : impl_(std::move(state)) {}

std::unique_ptr<kernel_instance> kernel_instance::start(const kernel_launch& launch) {
    return start(launch, nullptr);
}

std::unique_ptr<kernel_instance> kernel_instance::start(
    const kernel_launch& launch, const std::shared_ptr<kernel_template>& from) {
    // A kernel forked inside the template's sandbox lives in a folder of the template's, the
    // one its sandbox lets it write; its siblings can read that folder, so no file there holds
    // its key: the template hands the connection info to the child itself.
    const bool shares_sandbox = from && from->sandboxed();
    std::unique_ptr<impl> state;
    try {
        state = std::make_unique<impl>(
            launch, shares_sandbox ? from->children_directory() : launch.runtime_base);
    } catch (const std::system_error& e) {
        throw kernel_start_error(std::string("cannot make the kernel's folder: ") + e.what());
    }
    auto& s = *state;
    s.info = launch.transport == "tcp"
                 ? jupyter::connection_info::make_tcp()
                 : jupyter::connection_info::make_ipc(s.directory.path() / "k");
    const auto connection_file = s.directory.path() / "kernel.json";
    if (!shares_sandbox) {
        std::ofstream out(connection_file);
        out << s.info.to_json().dump(2);
        if (!out) throw kernel_start_error("cannot write " + connection_file.string());
    }

    process::spawn_options options;
    std::optional<process::process_attributes> attributes;
    try {  // the sandbox's preparation, or the kernel's environment file
        kernel_wrapping wrapping;
        if (shares_sandbox) {
            wrapping.environment = launch.sandbox_scratch(s.directory.path());
        } else if (launch.wrap && !from) {
            wrapping = launch.wrap(s.directory.path());
        }
        options =
            detail::kernel_spawn_options(launch, wrapping, s.directory.path(), connection_file);
    } catch (const std::exception& e) {
        throw kernel_start_error(std::string("cannot prepare the kernel's start: ") + e.what());
    }
    auto log = s.log;
    options.on_output_line = [log](std::string_view line) { log->debug("kernel: {}", line); };
    options.io = launch.io;
    try {
        if (launch.containment) {
            s.tree = launch.containment->contain(launch.limits);
            options.cgroup_procs = s.tree->cgroup_procs();
            options.limits = s.tree->rlimits();
            for (const auto& [name, value] : s.tree->environment()) {
                options.environment[name] = value;
            }
        }
        if (from) {
            s.own_paths = detail::stamps_of(detail::own_path_entries(launch));
            attributes = from->child_attributes(options.limits);
            s.child = from->fork(std::move(options), {"-f", connection_file.string()},
                                 shares_sandbox ? s.info.to_json() : nlohmann::json(),
                                 clock::now() + fork_wait);
        } else {
            s.child = process::child_process::spawn(std::move(options));
        }
    } catch (const process::process_error& e) {
        throw kernel_start_error(e.what());
    }

    jupyter::connection_handlers handlers;
    auto* raw = state.get();
    handlers.on_shell = [raw](message&& msg) { raw->on_shell(std::move(msg)); };
    handlers.on_iopub = [raw](message&& msg) { raw->on_iopub(std::move(msg)); };
    handlers.on_control = [raw](message&& msg) { raw->log->debug("control: {}", msg.msg_type()); };
    handlers.on_heartbeat_lost = [raw] { raw->on_heartbeat_lost(); };
    handlers.on_dropped = [raw](jupyter::channel which, const std::string& reason) {
        raw->on_dropped(which, reason);
    };
    auto created = std::unique_ptr<kernel_instance>(new kernel_instance(std::move(state)));
    created->pid_ = s.child->pid();
    created->template_ = from;
    created->attributes_ = std::move(attributes);
    jupyter::connection_options connection_options;
    connection_options.heartbeat_interval = launch.heartbeat_interval;
    connection_options.heartbeat_misses = launch.heartbeat_misses;
    connection_options.io = launch.io;
    s.connection = std::make_unique<jupyter::kernel_connection>(s.info, core::new_uuid(), handlers,
                                                                connection_options);
    if (s.child->exit_fd() >= 0) {
        s.connection->watch_fd(s.child->exit_fd(), [raw] { raw->on_exit(); });
    } else {
        s.log->warn(
            "this system gives no exit descriptor; a dying kernel is noticed only by its "
            "heartbeat");
    }
    s.request_kernel_info();
    return created;
}

kernel_instance::~kernel_instance() {
    try {
        shutdown();
    } catch (const std::exception& e) {
        impl_->log->warn("kernel shutdown failed: {}", e.what());
    }
}

void kernel_instance::wait_ready(clock::time_point deadline) {
    auto& s = *impl_;
    auto last_request = clock::now();
    std::unique_lock lock(s.mutex);
    while (!s.is_ready) {
        if (s.abandoned) throw kernel_start_error("the kernel session was stopped");
        if (s.dead) {
            const auto reason = s.death_reason;
            lock.unlock();
            throw kernel_start_error(
                s.describe_start_failure("exited during start-up (" + reason + ")", true));
        }
        const auto now = clock::now();
        if (now >= deadline) {
            lock.unlock();
            throw kernel_start_error(
                s.describe_start_failure("did not become ready in time", false));
        }
        const auto resend_after = s.info_replied ? iopub_echo_wait : reply_wait;
        if (now - last_request >= resend_after) {
            lock.unlock();
            s.request_kernel_info();
            last_request = clock::now();
            lock.lock();
            continue;
        }
        s.changed.wait_until(lock, std::min(deadline, last_request + resend_after));
    }
}

void kernel_instance::abandon_start() {
    {
        std::lock_guard lock(impl_->mutex);
        impl_->abandoned = true;
    }
    impl_->changed.notify_all();
}

bool kernel_instance::ready() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->is_ready && !impl_->dead;
}

void kernel_instance::execute(const std::string& code,
                              const std::shared_ptr<pending_execution>& into) {
    auto& s = *impl_;
    auto request = jupyter::make_request("execute_request",
                                         {{"code", code},
                                          {"silent", false},
                                          {"store_history", true},
                                          {"user_expressions", nlohmann::json::object()},
                                          {"allow_stdin", false},
                                          // Each execution stands alone: with stop_on_error a
                                          // request arriving just after a failure is aborted.
                                          {"stop_on_error", false}},
                                         s.connection->session_id());
    into->events.bound(1 << 20, s.launch.output_cap);
    into->msg_id = request.msg_id();
    {
        std::lock_guard lock(s.mutex);
        if (s.dead) {
            into->push_progress(kernel_died{s.death_reason}, execution_progress::died);
            return;
        }
        s.routes.emplace(into->msg_id, impl::route{into});
    }
    try {
        s.connection->send(channel::shell, std::move(request));
    } catch (const std::exception& e) {
        // Not sent (the kernel left too much unread, say): the execution ends here, its route
        // with it, and the kernel stays as it is.
        {
            std::lock_guard lock(s.mutex);
            s.routes.erase(into->msg_id);
        }
        into->push_progress(
            kernel_died{std::string("the code could not be sent to the kernel: ") + e.what()},
            execution_progress::died);
    }
}

void kernel_instance::interrupt() {
    if (!alive()) return;
    impl_->connection->send(channel::control,
                            jupyter::make_request("interrupt_request", nlohmann::json::object(),
                                                  impl_->connection->session_id()));
}

std::optional<process::limit_breach> kernel_instance::take_limit_breach() {
    if (!impl_->tree) return std::nullopt;
    std::lock_guard lock(impl_->tree_mutex);
    return impl_->tree->take_breach();
}

void kernel_instance::end_descendants() {
    if (!impl_->tree) return;
    std::lock_guard lock(impl_->tree_mutex);
    const int ended = impl_->tree->kill_all();
    if (ended > 0) impl_->log->debug("ended {} processes left by the kernel", ended);
}

bool kernel_instance::outdated() const {
    if (!template_) return false;
    if (template_->outdated() || detail::changed(impl_->own_paths)) return true;
    // A spare that shares its template's sandbox has the sandbox of the template's start: once
    // a cold kernel would get another (a repository nested since), it is not used.
    try {
        return !template_->sandbox_changed().empty();
    } catch (const std::exception&) {
        return true;
    }
}

bool kernel_instance::alive() const {
    std::lock_guard lock(impl_->mutex);
    return !impl_->dead;
}

std::string kernel_instance::exit_reason() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->death_reason;
}

bool kernel_instance::stopped_by_limit() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->stopped_by_limit;
}

int kernel_instance::pid() const {
    return impl_->child ? impl_->child->pid() : pid_;
}

nlohmann::json kernel_instance::info() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->kernel_info;
}

void kernel_instance::end_now() {
    auto& s = *impl_;
    if (!s.child) return;
    s.child->signal_group(SIGKILL);
    end_descendants();
    if (!s.child->wait_for(std::chrono::milliseconds(5000))) {
        s.log->warn("kernel {} did not end within 5 s of SIGKILL", s.child->pid());
    }
}

std::string kernel_instance::interfered_with() const {
    if (!alive()) return "it has exited";
    if (auto trouble = process::signal_trouble(pid()); !trouble.empty()) return trouble;
    return attributes_ ? process::attribute_trouble(pid(), *attributes_) : std::string();
}

void kernel_instance::shutdown(std::chrono::milliseconds grace) {
    auto& s = *impl_;
    if (!s.child) return;
    if (alive() && ready()) {
        s.connection->send(channel::control,
                           jupyter::make_request("shutdown_request", {{"restart", false}},
                                                 s.connection->session_id()));
        if (!s.child->wait_for(grace)) s.log->debug("kernel ignored shutdown_request; signalling");
    }
    s.child->terminate(std::chrono::milliseconds(1000));
    end_descendants();
    s.connection.reset();
    {
        std::lock_guard lock(s.mutex);
        if (!s.dead) {
            s.dead = true;
            s.death_reason = "shut down";
            for (auto& [id, r] : s.routes) {
                r.execution->push_progress(kernel_died{s.death_reason}, execution_progress::died);
            }
            s.routes.clear();
        }
    }
    pid_ = s.child->pid();
    s.child.reset();
}

}  // namespace ipybox::kernel
