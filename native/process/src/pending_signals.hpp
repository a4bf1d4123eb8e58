#pragma once
// The words for a process's pending signals (private to the process module; signal_state.hpp's
// Linux and Darwin implementations share them).
#include <cstdint>
#include <string>

namespace ipybox::process::detail {

// "" when `pending` (bit n-1 for signal n) holds only signals that do nothing by default
// (SIGCHLD, SIGCONT, SIGURG, SIGWINCH); else "a signal is pending for it (mask 0x...)".
std::string pending_signal_trouble(std::uint64_t pending);

}  // namespace ipybox::process::detail
