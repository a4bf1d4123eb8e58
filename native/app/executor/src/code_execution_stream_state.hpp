#pragma once
// What a code_execution_stream holds (private to app): the kernel's stream and the approvals
// routed to it, attached from its start until the execution ends; or, for an execution that
// could not even be queued (no kernel session could be set up), only its failure.
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "approval_bridge.hpp"
#include "ipybox/code_executor.hpp"
#include "ipybox/kernel/execution_stream.hpp"

namespace ipybox {

struct code_execution_stream::state {
    state(std::unique_ptr<kernel::execution_stream> kernel_stream, app::approval_bridge& bridge,
          bool attached, std::function<void()> cancel)
        : stream(std::move(kernel_stream)),
          approvals(&bridge),
          holds_approvals(attached),
          cancel_tool_calls(std::move(cancel)) {}
    explicit state(code_execution_failure failure)
        : holds_approvals(false), failed_before_queueing(std::move(failure)) {}

    // Holds the execution's place in the kernel's queue until released (after the approvals
    // are detached, so that the next execution finds the bridge free). Null for a failure
    // before queueing.
    std::unique_ptr<kernel::execution_stream> stream;
    app::approval_bridge* approvals = nullptr;  // null for a failure before queueing
    bool holds_approvals;
    std::function<void()> cancel_tool_calls;
    std::optional<code_execution_failure> failed_before_queueing;
    bool done = false;
};

}  // namespace ipybox
