#include <cstdio>

#include "ipybox/core/log.hpp"
#include "ipybox/core/text.hpp"
#include "ipybox/kernel/kernel_session.hpp"

namespace ipybox::kernel {
namespace {

using clock = std::chrono::steady_clock;
// How long the idle status may lag behind the execute reply before it counts as lost.
constexpr auto idle_grace = std::chrono::seconds(5);

std::string seconds_text(std::chrono::milliseconds duration) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.2f s", static_cast<double>(duration.count()) / 1000.0);
    return buffer;
}

std::string join_traceback(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& line : lines) {
        if (!out.empty()) out += '\n';
        out += core::strip_ansi(line);
    }
    return out;
}

}  // namespace

execution_stream::execution_stream(kernel_session& session, core::ticket_turn turn,
                                   std::shared_ptr<kernel_instance> kernel,
                                   std::shared_ptr<pending_execution> pending,
                                   std::optional<std::chrono::milliseconds> timeout,
                                   std::vector<std::string> notices)
    : session_(session),
      turn_(std::move(turn)),
      kernel_(std::move(kernel)),
      pending_(std::move(pending)),
      timeout_(timeout),
      collector_(session.options_.launch.working_directory, session.options_.images_directory,
                 session.options_.max_output_bytes),
      notices_(std::move(notices)) {
    if (timeout_) deadline_ = clock::now() + *timeout_;
}

execution_stream::~execution_stream() {
    if (finished_) return;
    try {
        request_cancel();
        while (!finished_) next();
    } catch (const std::exception& e) {
        core::logger("kernel")->error("abandoning an execution failed: {}", e.what());
        session_.release(this);
    }
}

void execution_stream::pause_timeout() {
    std::lock_guard lock(clock_mutex_);
    if (!paused_at_) paused_at_ = clock::now();
}

void execution_stream::resume_timeout() {
    {
        std::lock_guard lock(clock_mutex_);
        if (!paused_at_) return;
        if (deadline_) *deadline_ += clock::now() - *paused_at_;
        paused_at_.reset();
    }
    wake();
}

void execution_stream::wake() {
    pending_->events.push(wake_up{});
}

void execution_stream::request_cancel() {
    cancel_requested_ = true;
    wake();
}

void execution_stream::begin_interrupt(stop_reason reason) {
    phase_ = phase::interrupting;
    stop_reason_ = reason;
    interrupt_deadline_ = clock::now() + session_.options_.interrupt_grace;
    kernel_->interrupt();
}

std::optional<output_chunk> execution_stream::next(clock::time_point wait_until) {
    while (!finished_) {
        if (cancel_requested_ && phase_ == phase::running) begin_interrupt(stop_reason::cancel);
        auto deadline = wait_until;
        {
            std::lock_guard lock(clock_mutex_);
            if (phase_ == phase::running && deadline_ && !paused_at_) {
                deadline = std::min(deadline, *deadline_);
            }
        }
        if (phase_ == phase::interrupting) deadline = std::min(deadline, interrupt_deadline_);
        if (replied_ && !idle_) deadline = std::min(deadline, replied_at_ + idle_grace);

        auto event = pending_->events.pop(deadline);
        if (event) {
            if (std::holds_alternative<wake_up>(*event)) return std::nullopt;
            if (auto chunk = handle(*event)) return chunk;
            continue;
        }
        const auto now = clock::now();
        if (replied_ && !idle_ && now >= replied_at_ + idle_grace) {
            // The reply is in but the idle status never came: IOPub is publish/subscribe, and a
            // kernel whose send queue overflowed drops messages. The execution is over anyway.
            notices_.push_back(
                "The kernel's output channel lost messages (it produced output faster than "
                "it could be delivered); some output of this cell may be missing.");
            complete();
            return std::nullopt;
        }
        bool timed_out = false;
        {
            std::lock_guard lock(clock_mutex_);
            timed_out = phase_ == phase::running && deadline_ && !paused_at_ && now >= *deadline_;
        }
        if (timed_out) {
            begin_interrupt(stop_reason::timeout);
            continue;
        }
        if (phase_ == phase::interrupting && now >= interrupt_deadline_) {
            // The code ignored the interrupt. Only a new kernel gets the session back.
            core::logger("kernel")->warn("kernel {} did not stop when interrupted; restarting it",
                                         kernel_->pid());
            restarted_ = true;
            {
                std::lock_guard lock(session_.state_mutex_);
                if (session_.current_ == kernel_) session_.replace_kernel();
            }
            complete();
            return std::nullopt;
        }
        if (now >= wait_until) return std::nullopt;
    }
    return std::nullopt;
}

std::optional<output_chunk> execution_stream::handle(kernel_event& event) {
    if (auto* stream = std::get_if<stream_output>(&event)) return collector_.add(*stream);
    if (auto* display = std::get_if<display_output>(&event)) return collector_.add(*display);
    if (auto* error = std::get_if<error_output>(&event)) {
        error_ = std::move(*error);
    } else if (auto* reply = std::get_if<execute_reply>(&event)) {
        reply_ = *reply;
        replied_ = true;
        replied_at_ = clock::now();
    } else if (auto* idle = std::get_if<kernel_idle>(&event)) {
        idle_micros_ = idle->sent_micros;
        idle_ = true;
    } else if (auto* died = std::get_if<kernel_died>(&event)) {
        died_ = *died;
        complete();
        return std::nullopt;
    }
    if (replied_ && idle_) complete();
    return std::nullopt;
}

void execution_stream::complete() {
    finished_ = true;
    phase_ = phase::done;
    session_.release(this);
}

// Says which limit an exception comes from, when one does: the code sees an ordinary error
// (BlockingIOError, "can't start new thread", "File too large", MemoryError), the user should
// see the limit behind it.
std::string execution_stream::limit_hint(const error_output& error) {
    const auto& limits = session_.options_.launch.limits;
    if (auto breach = kernel_->take_limit_breach(); breach && breach->limit == "processes") {
        return " [ipybox: the kernel reached " + breach->detail +
               "; the kernel and its state are intact]";
    }
    if (limits.file_size_bytes && error.evalue.find("File too large") != std::string::npos) {
        return " [ipybox: a file reached the kernel's file-size limit of " +
               process::describe_bytes(*limits.file_size_bytes) +
               "; the kernel and its state are intact]";
    }
    if (limits.memory_bytes && error.ename == "MemoryError") {
        return " [ipybox: the kernel's memory limit is " +
               process::describe_bytes(*limits.memory_bytes) +
               "; the kernel and its state are intact]";
    }
    return {};
}

execution_result execution_stream::finish() {
    if (!finished_) throw std::logic_error("execution_stream::finish() before the stream finished");
    std::string output = collector_.text();
    const std::string timeout_text = timeout_ ? seconds_text(*timeout_) : std::string();
    if (died_) {
        const auto& reason = died_->reason;
        const auto what = reason.rfind("exceeded ", 0) == 0
                              ? "The kernel " + reason + " while running this code."
                              : "The kernel died while running this code (" + reason + ").";
        throw kernel_died_error(what +
                                    " Its state (variables, imports, definitions) is lost; the "
                                    "next execution starts in a fresh kernel.",
                                std::move(output));
    }
    if (stop_reason_ == stop_reason::timeout && (restarted_ || reply_.status != "ok")) {
        if (restarted_) {
            throw execution_timeout(
                "Code execution exceeded the timeout of " + timeout_text +
                    " and did not stop when interrupted (it may catch KeyboardInterrupt or block "
                    "in native code). The kernel was restarted, so its state (variables, imports, "
                    "definitions) was lost.",
                false, std::move(output));
        }
        throw execution_timeout("Code execution exceeded the timeout of " + timeout_text +
                                    ". The kernel was interrupted; its state (variables, imports, "
                                    "definitions) was kept.",
                                true, std::move(output));
    }
    execution_result result;
    result.notices = std::move(notices_);
    if (stop_reason_ == stop_reason::cancel && (restarted_ || reply_.status != "ok")) {
        result.cancelled = true;
        if (restarted_) {
            result.notices.push_back(
                "The cancelled code did not stop when interrupted; the kernel "
                "was restarted and its state was lost.");
        }
    } else if (reply_.status == "aborted") {
        throw execution_error("ExecutionAborted", "the kernel aborted this execution", "",
                              std::move(output));
    } else if (error_ || reply_.status == "error") {
        const auto error =
            error_.value_or(error_output{"Error", "the kernel reported an error", {}});
        throw execution_error(error.ename, error.evalue + limit_hint(error),
                              join_traceback(error.traceback), std::move(output));
    }
    result.text = std::move(output);
    result.images = collector_.images();
    result.execution_count = reply_.execution_count;
    result.omitted_output_bytes = collector_.omitted_bytes();
    if (reply_.started_micros && idle_micros_) {
        result.kernel_micros = *idle_micros_ - *reply_.started_micros;
    }
    return result;
}

}  // namespace ipybox::kernel
