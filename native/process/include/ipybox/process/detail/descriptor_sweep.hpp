#pragma once
// Ending our hold on every descriptor from a number up, in a child after fork: the spawned child
// marks them close-on-exec (exec then drops them), the keeper, which never execs, closes them.
//
// With close_range(2) (Linux 5.9 to close, 5.11 to mark) one call does it. Without, the numbers
// are read from /proc/self/fd, so that a descriptor above RLIMIT_NOFILE (soft or hard: a limit
// stops new descriptors, not old ones) is found as well; without /proc, every number up to the
// hard limit is tried (a descriptor above the hard limit exists only if the hard limit was
// lowered after it was opened, which ipybox never does).
//
// Async-signal-safe: no allocation (a buffer on the stack), so it may run between fork and exec.
// Call it before lowering RLIMIT_NOFILE; it is correct after too, but only through /proc.
namespace ipybox::process::detail {

enum class sweep_action { mark_close_on_exec, close };

// `use_close_range` false takes the path of kernels without it (tests use it on any kernel).
void sweep_descriptors_from(int first, sweep_action action, bool use_close_range);

}  // namespace ipybox::process::detail
