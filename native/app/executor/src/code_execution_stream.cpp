#include "code_execution_stream_state.hpp"
#include "execution_outcomes.hpp"

namespace ipybox {
namespace {

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
    if (!state_ || state_->done || !state_->stream) return;  // moved from, finished, never queued
    // Reject waiting approvals first: a kernel blocked on one could not be interrupted.
    finish_approvals();
    if (state_->cancel_tool_calls) state_->cancel_tool_calls();
    // Cancels the execution if it still runs; the next one starts once it has stopped.
    state_->stream->release();
}

void code_execution_stream::finish_approvals() {
    if (!state_->holds_approvals) return;
    state_->holds_approvals = false;
    state_->approvals->detach();
}

std::optional<code_execution_step> code_execution_stream::next_step() {
    auto& s = *state_;
    if (s.done) return std::nullopt;
    if (!s.stream) {
        s.done = true;
        return code_execution_step(std::move(*s.failed_before_queueing));
    }
    while (true) {
        if (s.holds_approvals) {
            if (auto request = s.approvals->pop()) return code_execution_step(std::move(*request));
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
    auto outcome = s.stream->finish();
    using kind = kernel::execution_outcome::kind;
    // Cancelled, timed out, the kernel dead or never there: the code that made the calls is gone.
    if (outcome.ending != kind::completed && outcome.ending != kind::exception &&
        s.cancel_tool_calls) {
        s.cancel_tool_calls();
    }
    return app::to_api(std::move(outcome));
}

std::optional<code_execution_event> code_execution_stream::next() {
    auto step = next_step();
    if (!step) return std::nullopt;
    if (auto* chunk = std::get_if<code_execution_chunk>(&*step)) return std::move(*chunk);
    if (auto* request = std::get_if<approval_request>(&*step)) return std::move(*request);
    if (auto* result = std::get_if<code_execution_result>(&*step)) return std::move(*result);
    // The blocking API's edge: the failure becomes the public exception here, and only here.
    throw code_execution_error(std::get<code_execution_failure>(std::move(*step)));
}

}  // namespace ipybox
