#pragma once
// What a code_execution_stream holds (private to app): the kernel's stream and the approvals
// routed to it, attached from its start until the execution ends.
#include <functional>
#include <memory>
#include <utility>

#include "approval_bridge.hpp"
#include "ipybox/code_executor.hpp"
#include "ipybox/kernel/execution_stream.hpp"

namespace ipybox {

struct code_execution_stream::state {
    state(std::unique_ptr<kernel::execution_stream> kernel_stream, app::approval_bridge& bridge,
          bool attached, std::function<void()> cancel)
        : stream(std::move(kernel_stream)),
          approvals(bridge),
          holds_approvals(attached),
          cancel_tool_calls(std::move(cancel)) {}

    // Holds the execution's place in the kernel's queue until released (after the approvals
    // are detached, so that the next execution finds the bridge free).
    std::unique_ptr<kernel::execution_stream> stream;
    app::approval_bridge& approvals;
    bool holds_approvals;
    std::function<void()> cancel_tool_calls;
    bool done = false;
};

}  // namespace ipybox
