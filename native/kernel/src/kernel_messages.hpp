#pragma once
// Turning the kernel's Jupyter messages into the events one execution receives (private to the
// kernel module). Pure: no I/O.
#include <optional>

#include "ipybox/jupyter/message.hpp"
#include "ipybox/kernel/kernel_events.hpp"

namespace ipybox::kernel::detail {

// A timestamp field ("date", "started") in microseconds on the kernel's clock, if present.
std::optional<long long> timestamp_of(const nlohmann::json& object, const char* key);

// A stream, display_data, execute_result or error message as its event. Takes the message
// apart: its texts are moved, not copied (a stream message can be large).
kernel_event to_event(jupyter::message&& msg);

}  // namespace ipybox::kernel::detail
