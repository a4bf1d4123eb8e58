#include "code_execution_stream_state.hpp"
#include "execution_errors.hpp"

namespace ipybox {
namespace {

code_execution_result to_api(kernel::execution_result&& result) {
    return code_execution_result{
        std::move(result.text),    std::move(result.images),    result.cancelled,
        std::move(result.notices), result.omitted_output_bytes, result.kernel_micros};
}

// Gives the execution's place in the queue back when the stream is done with it, whichever way
// it leaves.
struct release_at_end {
    kernel::execution_stream& stream;
    ~release_at_end() { stream.release(); }
};

}  // namespace

code_execution_stream::code_execution_stream(std::unique_ptr<state> held)
    : state_(std::move(held)) {}

code_execution_stream::code_execution_stream(code_execution_stream&& other) noexcept = default;

code_execution_stream::~code_execution_stream() {
    if (!state_ || state_->done) return;  // moved from, or finished
    // Reject waiting approvals first: a kernel blocked on one could not be interrupted.
    finish_approvals();
    if (state_->cancel_tool_calls) state_->cancel_tool_calls();
    // Cancels the execution if it still runs; the next one starts once it has stopped.
    state_->stream->release();
}

void code_execution_stream::finish_approvals() {
    if (!state_->holds_approvals) return;
    state_->holds_approvals = false;
    state_->approvals.detach();
}

std::optional<code_execution_event> code_execution_stream::next() {
    auto& s = *state_;
    if (s.done) return std::nullopt;
    while (true) {
        if (s.holds_approvals) {
            if (auto request = s.approvals.pop()) return code_execution_event(std::move(*request));
        }
        if (s.stream->finished()) break;
        if (auto chunk = s.stream->next()) {
            return code_execution_chunk{std::move(chunk->stream), std::move(chunk->text),
                                        std::move(chunk->image)};
        }
    }
    s.done = true;
    finish_approvals();
    release_at_end release{*s.stream};
    try {
        auto result = app::translate_errors([&] { return to_api(s.stream->finish()); });
        if (result.cancelled && s.cancel_tool_calls) s.cancel_tool_calls();
        return code_execution_event(std::move(result));
    } catch (const code_execution_error& e) {
        // A timeout or a dead kernel: the code that made the calls is gone.
        if (e.error_kind() != code_execution_error::kind::exception && s.cancel_tool_calls) {
            s.cancel_tool_calls();
        }
        throw;
    }
}

}  // namespace ipybox
