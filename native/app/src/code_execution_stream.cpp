#include "approval_bridge.hpp"
#include "execution_errors.hpp"
#include "ipybox/code_executor.hpp"

namespace ipybox {
namespace {

code_execution_result to_api(kernel::execution_result&& result) {
    return code_execution_result{
        std::move(result.text),    std::move(result.images),    result.cancelled,
        std::move(result.notices), result.omitted_output_bytes, result.kernel_micros};
}

}  // namespace

code_execution_stream::code_execution_stream(std::unique_ptr<kernel::execution_stream> stream,
                                             app::approval_bridge& approvals,
                                             core::ticket_lock& slot,
                                             std::function<void()> cancel_tool_calls)
    : stream_(std::move(stream)),
      approvals_(&approvals),
      cancel_tool_calls_(std::move(cancel_tool_calls)),
      slot_(&slot) {}

code_execution_stream::code_execution_stream(code_execution_stream&& other) noexcept
    : stream_(std::move(other.stream_)),
      approvals_(std::exchange(other.approvals_, nullptr)),
      cancel_tool_calls_(std::move(other.cancel_tool_calls_)),
      slot_(std::exchange(other.slot_, nullptr)),
      done_(other.done_) {}

code_execution_stream::~code_execution_stream() {
    if (!slot_) return;  // moved from
    // Reject waiting approvals first: a kernel blocked on one could not be interrupted.
    approvals_->detach();
    stream_.reset();  // an unfinished execution is cancelled and drained here
    if (!done_ && cancel_tool_calls_) cancel_tool_calls_();
    finish_approvals();
}

void code_execution_stream::finish_approvals() {
    if (!slot_) return;
    approvals_->detach();
    slot_->release();
    slot_ = nullptr;
}

std::optional<code_execution_event> code_execution_stream::next() {
    if (done_) return std::nullopt;
    while (true) {
        if (auto request = approvals_->pop()) return code_execution_event(std::move(*request));
        if (stream_->finished()) break;
        if (auto chunk = stream_->next()) {
            return code_execution_chunk{std::move(chunk->stream), std::move(chunk->text),
                                        std::move(chunk->image)};
        }
    }
    done_ = true;
    finish_approvals();
    try {
        auto result = app::translate_errors([&] { return to_api(stream_->finish()); });
        if (result.cancelled && cancel_tool_calls_) cancel_tool_calls_();
        return code_execution_event(std::move(result));
    } catch (const code_execution_error& e) {
        // A timeout or a dead kernel: the code that made the calls is gone.
        if (e.error_kind() != code_execution_error::kind::exception && cancel_tool_calls_) {
            cancel_tool_calls_();
        }
        throw;
    }
}

}  // namespace ipybox
