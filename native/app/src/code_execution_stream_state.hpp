#pragma once
// What a code_execution_stream holds (private to app): the kernel's stream, the approvals routed
// to it, and the executor's stream slot, held until the execution ends.
#include <functional>
#include <memory>
#include <utility>

#include "approval_bridge.hpp"
#include "ipybox/code_executor.hpp"
#include "ipybox/core/ticket_lock.hpp"
#include "ipybox/kernel/kernel_session.hpp"

namespace ipybox {

struct code_execution_stream::state {
    state(std::unique_ptr<kernel::execution_stream> kernel_stream, app::approval_bridge& bridge,
          core::ticket_turn held, std::function<void()> cancel)
        : stream(std::move(kernel_stream)),
          approvals(bridge),
          turn(std::move(held)),
          cancel_tool_calls(std::move(cancel)) {}

    std::unique_ptr<kernel::execution_stream> stream;
    app::approval_bridge& approvals;
    core::ticket_turn turn;  // passed on (approvals detached first) when the execution ends
    std::function<void()> cancel_tool_calls;
    bool done = false;
};

}  // namespace ipybox
