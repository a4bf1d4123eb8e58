#include "ipybox/kernel/execution_stream.hpp"

#include <cstdio>

#include "ipybox/core/text.hpp"
#include "session_core.hpp"

namespace ipybox::kernel {
namespace {

using clock = std::chrono::steady_clock;

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

// The code raised: the message is what Python would print, without ANSI codes.
execution_outcome exception_outcome(std::string ename, std::string evalue, std::string traceback,
                                    std::string output) {
    execution_outcome outcome;
    outcome.ending = execution_outcome::kind::exception;
    // "ename: evalue" first, where a reader (and a result clipped in the middle) sees it, and
    // once: IPython's traceback ends with the same line, which is dropped from it.
    const auto summary = ename + ": " + evalue;
    std::string frames = traceback;
    const auto end = frames.find_last_not_of(" \n");
    if (end != std::string::npos && end + 1 >= summary.size() &&
        frames.compare(end + 1 - summary.size(), summary.size(), summary) == 0) {
        frames.erase(end + 1 - summary.size());
        frames.erase(frames.find_last_not_of(" \n") + 1);  // npos + 1 == 0: all of it
    }
    outcome.message = summary + (frames.empty() ? "" : "\n" + frames);
    outcome.ename = std::move(ename);
    outcome.evalue = std::move(evalue);
    outcome.traceback = std::move(traceback);
    outcome.result.text = std::move(output);
    return outcome;
}

}  // namespace

execution_stream::execution_stream(std::shared_ptr<detail::session_core> core,
                                   std::shared_ptr<detail::queued_execution> entry)
    : core_(std::move(core)),
      entry_(std::move(entry)),
      collector_(core_->options().launch.working_directory, core_->options().images_directory,
                 core_->options().max_output_bytes) {
    core_->stream_opened();
}

execution_stream::~execution_stream() {
    release();
}

void execution_stream::release() {
    if (released_.exchange(true)) return;
    core_->release(entry_);
    core_->stream_released();
}

void execution_stream::cancel() {
    core_->cancel(entry_);
}

void execution_stream::pause_timeout() {
    core_->pause_timeout(entry_);
}

void execution_stream::resume_timeout() {
    core_->resume_timeout(entry_);
}

void execution_stream::wake() {
    entry_->channel->events.push(wake_up{});
}

bool execution_stream::wait_started() {
    core_->refuse_on_loop("execution_stream::wait_started()");
    while (!started_ && !finished_) {
        auto event = entry_->channel->events.pop(clock::time_point::max());
        if (event) handle(*event);  // only markers and wake-ups come before the start
    }
    return started_;
}

std::optional<output_chunk> execution_stream::next(clock::time_point wait_until) {
    core_->refuse_on_loop("execution_stream::next()");
    while (!finished_) {
        auto event = entry_->channel->events.pop(wait_until);
        if (!event || std::holds_alternative<wake_up>(*event)) return std::nullopt;
        if (auto chunk = handle(*event)) return chunk;
    }
    return std::nullopt;
}

std::optional<output_chunk> execution_stream::take() {
    while (!finished_) {
        auto event = entry_->channel->events.pop(clock::time_point::min());
        if (!event) return std::nullopt;
        if (auto chunk = handle(*event)) return chunk;  // wake-ups and markers give none
    }
    return std::nullopt;
}

void execution_stream::notify_when_ready(std::function<void()> notify) {
    entry_->channel->events.notify_when_ready(std::move(notify));
}

std::optional<output_chunk> execution_stream::handle(kernel_event& event) {
    if (auto* stream = std::get_if<stream_output>(&event)) return collector_.add(*stream);
    if (auto* display = std::get_if<display_output>(&event)) return collector_.add(*display);
    if (auto* error = std::get_if<error_output>(&event)) {
        error_ = std::move(*error);
    } else if (auto* reply = std::get_if<execute_reply>(&event)) {
        reply_ = *reply;
    } else if (auto* idle = std::get_if<kernel_idle>(&event)) {
        idle_micros_ = idle->sent_micros;
    } else if (auto* died = std::get_if<kernel_died>(&event)) {
        if (!died_) died_ = *died;
    } else if (std::holds_alternative<execution_started>(event)) {
        started_ = true;
    } else if (std::holds_alternative<execution_ended>(event)) {
        finished_ = true;  // what the kernel sends after this is no longer this execution's
    }
    return std::nullopt;
}

// Says which limit an exception comes from, when one does: the code sees an ordinary error
// (BlockingIOError, "can't start new thread", "File too large", MemoryError), the user should
// see the limit behind it.
std::string execution_stream::limit_hint(const error_output& error) const {
    const auto& limits = core_->options().launch.limits;
    const auto& kernel = entry_->outcome.kernel;
    if (auto breach = kernel ? kernel->take_limit_breach() : std::nullopt;
        breach && breach->limit == "processes") {
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

execution_outcome execution_stream::finish() {
    if (!finished_) throw std::logic_error("execution_stream::finish() before the stream finished");
    using kind = execution_outcome::kind;
    // Only the strand writes the record, and only before the end marker this stream has read.
    const auto& record = entry_->outcome;
    using not_run = detail::execution_record::not_run;
    using stop_reason = detail::execution_record::stop_reason;
    execution_outcome outcome;
    switch (record.never_ran) {
        case not_run::no:
            break;
        case not_run::withdrawn:
            outcome.ending = kind::cancelled;
            outcome.result.notices = record.notices;
            return outcome;
        case not_run::refused:
            return exception_outcome("ValueError", record.reason, "", "");
        case not_run::start_failed:
        case not_run::session_stopped:
            outcome.ending = kind::start_failed;
            outcome.message = record.reason;
            outcome.state_kept = false;
            return outcome;
        case not_run::kernel_lost:
            outcome.ending = kind::kernel_died;
            outcome.message = "This code did not run: " + record.reason +
                              ", and it had been queued before that happened. Its state "
                              "(variables, imports, definitions) is lost; run the code again to "
                              "run it in a fresh kernel.";
            outcome.state_kept = false;
            return outcome;
    }
    std::string output = collector_.text();
    const auto& timeout = entry_->timeout;
    const std::string timeout_text = timeout ? seconds_text(*timeout) : std::string();
    if (died_) {
        const auto& reason = died_->reason;
        const auto what = reason.rfind("exceeded ", 0) == 0
                              ? "The kernel " + reason + " while running this code."
                              : "The kernel died while running this code (" + reason + ").";
        outcome.ending = kind::kernel_died;
        outcome.message = what +
                          " Its state (variables, imports, definitions) is lost; the next "
                          "execution starts in a fresh kernel.";
        outcome.state_kept = false;
        outcome.result.text = std::move(output);
        return outcome;
    }
    if (record.stopped_by == stop_reason::timeout && (record.restarted || reply_.status != "ok")) {
        outcome.ending = kind::timeout;
        outcome.state_kept = !record.restarted;
        outcome.message =
            record.restarted
                ? "Code execution exceeded the timeout of " + timeout_text +
                      " and did not stop when interrupted (it may catch KeyboardInterrupt or "
                      "block in native code). The kernel was restarted, so its state (variables, "
                      "imports, definitions) was lost."
                : "Code execution exceeded the timeout of " + timeout_text +
                      ". The kernel was interrupted; its state (variables, imports, "
                      "definitions) was kept.";
        outcome.result.text = std::move(output);
        return outcome;
    }
    outcome.result.notices = record.notices;
    if (const auto left_out = entry_->channel->events.images_left_out(); left_out > 0) {
        outcome.result.notices.push_back(
            std::to_string(left_out) + (left_out == 1 ? " image" : " images") +
            " displayed by this code " + (left_out == 1 ? "was" : "were") + " left out: over the " +
            process::describe_bytes(entry_->channel->events.image_budget()) +
            " of images one execution may display (base64, as the kernel sends them). Save "
            "large or many images to files instead (e.g. fig.savefig).");
    }
    if (record.stopped_by == stop_reason::cancel && (record.restarted || reply_.status != "ok")) {
        outcome.ending = kind::cancelled;
        if (record.restarted) {
            outcome.result.notices.push_back(
                "The cancelled code did not stop when interrupted; the kernel "
                "was restarted and its state was lost.");
        }
    } else if (!reply_.dropped.empty()) {
        // The code ran; only its reply was lost (a payload, such as text for a pager, made it
        // too big). Its output and the kernel's state are intact.
        return exception_outcome(
            "KernelReplyTooLarge",
            "the kernel's reply to this code was dropped unread: it was " + reply_.dropped +
                ", ipybox's bound for a message on the kernel's shell channel. Output printed "
                "before it is kept; the kernel and its state are intact. (A reply carries the "
                "code's payloads, such as text for a pager: print large text instead.)",
            "", std::move(output));
    } else if (reply_.status == "aborted") {
        return exception_outcome("ExecutionAborted", "the kernel aborted this execution", "",
                                 std::move(output));
    } else if (error_ || reply_.status == "error") {
        const auto error =
            error_.value_or(error_output{"Error", "the kernel reported an error", {}});
        return exception_outcome(error.ename, error.evalue + limit_hint(error),
                                 join_traceback(error.traceback), std::move(output));
    }
    outcome.result.text = std::move(output);
    outcome.result.images = collector_.images();
    outcome.result.execution_count = reply_.execution_count;
    outcome.result.omitted_output_bytes = collector_.omitted_bytes();
    if (reply_.started_micros && idle_micros_) {
        outcome.result.kernel_micros = *idle_micros_ - *reply_.started_micros;
    }
    return outcome;
}

}  // namespace ipybox::kernel
