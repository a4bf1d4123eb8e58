#include "async_execution.hpp"

#include <boost/asio/post.hpp>

#include "execution_outcomes.hpp"
#include "ipybox/core/log.hpp"

namespace ipybox::app {
namespace {

// The caller's handler runs on the loop: what it throws must not end the loop's run().
void deliver(const step_handler& on_step, code_execution_step step) {
    try {
        on_step(std::move(step));
    } catch (const std::exception& e) {
        core::logger("app")->error("an async_execute() step handler threw: {}", e.what());
    }
}

}  // namespace

async_execution::async_execution(boost::asio::io_context& loop,
                                 std::unique_ptr<kernel::execution_stream> stream,
                                 std::shared_ptr<approval_bridge> approvals,
                                 std::function<void()> cancel_tool_calls, step_handler on_step)
    : loop_(loop),
      stream_(std::move(stream)),
      approvals_(std::move(approvals)),
      cancel_tool_calls_(std::move(cancel_tool_calls)),
      on_step_(std::move(on_step)) {}

void async_execution::begin() {
    boost::asio::post(loop_, [self = shared_from_this()] { self->pump(); });
}

void async_execution::pump() {
    if (done_) return;
    while (true) {
        if (!attached_ && stream_->started()) {
            // Its code is in the kernel: requests (also those queued since the bridge opened)
            // come here, and the bridge wakes the stream, whose notify brings us back.
            auto* raw = stream_.get();
            approvals_->attach({[raw] { raw->pause_timeout(); }, [raw] { raw->resume_timeout(); },
                                [raw] { raw->wake(); }});
            attached_ = true;
        }
        if (attached_) {
            if (auto request = approvals_->pop()) {
                deliver(on_step_, std::move(*request));
                continue;
            }
        }
        if (stream_->finished()) {
            finish();
            return;
        }
        if (auto chunk = stream_->take()) {
            deliver(on_step_, code_execution_chunk{std::move(chunk->stream), std::move(chunk->text),
                                                   std::move(chunk->image)});
            continue;
        }
        if (stream_->finished() || (!attached_ && stream_->started())) continue;
        // Nothing waits: be told of the next event (at once if one came since take()).
        stream_->notify_when_ready([self = shared_from_this()] {
            boost::asio::post(self->loop_, [self] { self->pump(); });
        });
        return;
    }
}

void async_execution::finish() {
    done_ = true;
    if (attached_) approvals_->detach();  // requests still waiting are rejected
    auto outcome = stream_->finish();
    using kind = kernel::execution_outcome::kind;
    if (outcome.ending != kind::completed && outcome.ending != kind::exception &&
        cancel_tool_calls_) {
        cancel_tool_calls_();
    }
    // The next execution may start once this one has let go of the bridge and its place.
    stream_->release();
    auto last = to_api(std::move(outcome));
    auto handler = std::move(on_step_);
    deliver(handler, std::move(last));
}

}  // namespace ipybox::app
