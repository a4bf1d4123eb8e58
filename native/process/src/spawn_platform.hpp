#pragma once
// What spawn() needs of the platform (private to the process module; issue 39's platform layer,
// concern "process spawning and exit"):
//
//   Linux     pipe2(O_CLOEXEC); every limit of process_rlimits (linux/spawn_platform.cpp)
//   Darwin    pipe() then FD_CLOEXEC on each end: a child spawn() starts meanwhile on another
//             thread still gets neither, because its sweep marks everything from 3 up
//             close-on-exec; the limits but RLIMIT_AS, which Darwin accepts and does not enforce
//             (containment holds memory with its watchdog there) (posix/spawn_platform.cpp)
//   portable  as on Darwin
#include "ipybox/process/spawn.hpp"

namespace ipybox::process::detail {

// A pipe whose two ends are close-on-exec; false (errno set) when it cannot be made.
bool open_pipe(int ends[2]);

// Sets `resource` to `value` (soft = hard) when a value is given: async-signal-safe (spawn.cpp).
bool set_limit(int resource, const std::optional<std::uint64_t>& value);

// Applies `limits` to the calling process (soft = hard), in a child between fork and exec:
// async-signal-safe. False (errno set) when one cannot be applied.
bool apply_limits(const process_rlimits& limits);

}  // namespace ipybox::process::detail
