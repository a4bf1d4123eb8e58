// What the kernel's connection reports to a kernel_instance (kernel_instance_state.hpp): replies,
// output, dropped messages, readiness, a lost heartbeat and the process's exit.
#include <csignal>

#include "kernel_instance_state.hpp"
#include "kernel_messages.hpp"

namespace ipybox::kernel {
namespace {

using detail::timestamp_of;
using detail::to_event;
using jupyter::channel;
using jupyter::message;

}  // namespace

void kernel_instance::impl::on_shell(message&& msg) {
    const auto parent = msg.parent_msg_id();
    std::lock_guard lock(mutex);
    if (msg.msg_type() == "kernel_info_reply" && info_requests.count(parent) != 0) {
        info_replied = true;
        kernel_info = msg.content;
        update_ready();
        return;
    }
    const auto it = routes.find(parent);
    if (it == routes.end() || msg.msg_type() != "execute_reply") return;
    log->trace("shell execute_reply {} for {}", msg.content.value("status", ""), parent);
    it->second.execution->push_progress(execute_reply{msg.content.value("status", "ok"),
                                                      msg.content.value("execution_count", 0),
                                                      timestamp_of(msg.metadata, "started"),
                                                      {}},
                                        execution_progress::replied);
    it->second.replied = true;
    if (it->second.idle) routes.erase(it);
}

void kernel_instance::impl::on_iopub(message&& msg) {
    const auto parent = msg.parent_msg_id();
    const auto type = msg.msg_type();
    std::lock_guard lock(mutex);
    if (info_requests.count(parent) != 0) {
        iopub_seen = true;
        update_ready();
        return;
    }
    const auto it = routes.find(parent);
    if (it == routes.end()) {
        log->debug("iopub {} for unknown parent {}", type, parent);
        return;
    }
    auto& execution = *it->second.execution;
    log->trace("iopub {} for {}", type, parent);
    if (type == "status") {
        if (msg.content.value("execution_state", "") != "idle") return;
        execution.push_progress(kernel_idle{timestamp_of(msg.header, "date")},
                                execution_progress::idle);
        it->second.idle = true;
        if (it->second.replied) routes.erase(it);
    } else if (type == "stream" || type == "display_data" || type == "execute_result" ||
               type == "error") {
        execution.last_output = std::chrono::steady_clock::now();
        execution.events.push(to_event(std::move(msg)));
    }
}

void kernel_instance::impl::on_dropped(jupyter::channel which, const std::string& reason) {
    std::lock_guard lock(mutex);
    for (auto it = routes.begin(); it != routes.end();) {
        auto& waiting = it->second;
        if (which == channel::shell) {
            if (waiting.replied) {
                ++it;
                continue;
            }
            execute_reply lost{"error", 0, std::nullopt, reason};
            waiting.execution->push_progress(std::move(lost), execution_progress::replied);
            waiting.replied = true;
            it = waiting.idle ? routes.erase(it) : std::next(it);
            continue;
        }
        if (!waiting.idle) {
            stream_output notice;
            notice.name = "stderr";
            notice.text = "\n[ipybox] a message from the kernel on " +
                          std::string(jupyter::to_string(which)) + " was dropped (" + reason +
                          "): output may be missing\n";
            waiting.execution->events.push(std::move(notice));
        }
        ++it;
    }
}

void kernel_instance::impl::update_ready() {
    if (info_replied && iopub_seen && !is_ready) {
        is_ready = true;
        log->debug("kernel {} ready", child->pid());
    }
    changed.notify_all();
}

void kernel_instance::impl::on_heartbeat_lost() {
    const auto silent = launch.heartbeat_interval * launch.heartbeat_misses;
    {
        std::lock_guard lock(mutex);
        if (dead || !is_ready) return;
        hung_reason = "stopped answering (no heartbeat for " +
                      std::to_string(silent.count() / 1000) + " s) and was stopped";
    }
    log->warn("kernel {} {}", child->pid(), hung_reason);
    child->signal_group(SIGKILL);
    end_tree_in_rounds(tree_kill_rounds);
}

void kernel_instance::impl::end_tree_in_rounds(int rounds_left) {
    if (!tree) return;
    int signalled = 0;
    {
        // Held elsewhere only by end_descendants(), which ends the whole tree itself: never
        // wait for it on the loop.
        std::unique_lock tree_lock(tree_mutex, std::try_to_lock);
        if (!tree_lock.owns_lock()) return;
        signalled = tree->kill_members_once();
    }
    // What lingers (exiting, or forked between the listing and the signal) gets another round
    // once the loop comes back to it, never a wait here.
    if (signalled > 0 && rounds_left > 1) {
        connection->call_after(tree_kill_round_interval,
                               [this, rounds_left] { end_tree_in_rounds(rounds_left - 1); });
    }
}

void kernel_instance::impl::on_exit() {
    const auto status = child->poll_exit();
    std::optional<process::limit_breach> breach;
    if (tree) {
        std::lock_guard tree_lock(tree_mutex);
        breach = tree->take_breach();
    }
    std::lock_guard lock(mutex);
    dead = true;
    death_reason = status ? status->describe() : "exited";
    if (breach && breach->limit == "memory") {
        death_reason = "exceeded " + breach->detail + " and was stopped";
        stopped_by_limit = true;
    } else if (!hung_reason.empty()) {
        death_reason = hung_reason;
    }
    log->info("kernel {} {}", child->pid(), death_reason);
    for (auto& [id, r] : routes) {
        r.execution->push_progress(kernel_died{death_reason}, execution_progress::died);
    }
    routes.clear();
    changed.notify_all();
}

void kernel_instance::impl::request_kernel_info() {
    auto request = jupyter::make_request("kernel_info_request", nlohmann::json::object(),
                                         connection->session_id());
    {
        std::lock_guard lock(mutex);
        info_requests.insert(request.msg_id());
    }
    connection->send(channel::shell, std::move(request));
}

std::string kernel_instance::impl::describe_start_failure(const std::string& what,
                                                          bool exited) const {
    std::string text = "the kernel (" + launch.python.string() + ") " + what + ".";
    // An exited kernel's last words may still be in the pipe; they explain the failure.
    if (child && exited) child->wait_output_end(std::chrono::milliseconds(500));
    const auto tail = child ? child->output_tail() : std::string();
    if (!tail.empty()) text += " Its last output:\n" + tail;
    return text;
}

}  // namespace ipybox::kernel
