#pragma once
// One execution driven by callbacks (code_executor::async_execute): on the executor's loop it
// takes what the kernel's stream and the approval bridge have ready, hands each to the caller as
// a step, and asks the stream to tell it when more arrives. Nothing waits: a thread that runs the
// loop can start executions, answer their approvals and start the next from a step's handler.
//
// The steps are those of code_execution_stream::next_step(), in the same order: chunks and
// approval requests as they come, then the result or the failure, after which nothing follows.
// Thread-safety: begin() from any thread; everything else runs on the loop.
#include <boost/asio/io_context.hpp>
#include <functional>
#include <memory>

#include "approval_bridge.hpp"
#include "ipybox/code_executor.hpp"
#include "ipybox/kernel/execution_stream.hpp"

namespace ipybox::app {

using step_handler = std::function<void(code_execution_step)>;

class async_execution : public std::enable_shared_from_this<async_execution> {
  public:
    // `stream` was queued with the bridge opened on its start (kernel_session::execute's
    // on_start); `cancel_tool_calls` runs when the execution ends other than by completing or
    // raising (the code that made the calls is gone).
    async_execution(boost::asio::io_context& loop, std::unique_ptr<kernel::execution_stream> stream,
                    std::shared_ptr<approval_bridge> approvals,
                    std::function<void()> cancel_tool_calls, step_handler on_step);

    // Starts taking steps (posts onto the loop).
    void begin();

  private:
    void pump();    // takes what is ready, then asks to be told of more
    void finish();  // the last step: detach, outcome, release

    boost::asio::io_context& loop_;
    std::unique_ptr<kernel::execution_stream> stream_;
    std::shared_ptr<approval_bridge> approvals_;
    std::function<void()> cancel_tool_calls_;
    step_handler on_step_;
    bool attached_ = false;
    bool done_ = false;
};

}  // namespace ipybox::app
