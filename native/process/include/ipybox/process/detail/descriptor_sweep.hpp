#pragma once
// Ending our hold on every descriptor from a number up, in a child after fork: the spawned child
// marks them close-on-exec (exec then drops them), the keeper, which never execs, closes them.
//
// Linux (linux/descriptor_sweep.cpp): with close_range(2) (Linux 5.9 to close, 5.11 to mark)
// one call does it. Without, the numbers are read from /proc/self/fd, so that a descriptor above
// RLIMIT_NOFILE (soft or hard: a limit stops new descriptors, not old ones) is found as well;
// without /proc, every number up to the hard limit is tried.
// POSIX, for Darwin and the portable build (posix/descriptor_sweep.cpp): every number up to the
// hard limit (sysconf's OPEN_MAX when it is unlimited) is asked of poll(2), a batch of numbers
// per call, and the open ones are acted on. A descriptor above the hard limit exists only if the
// hard limit was lowered after it was opened, which ipybox never does before a sweep.
//
// Async-signal-safe: no allocation (buffers on the stack), so it may run between fork and exec.
// Call it before lowering RLIMIT_NOFILE.
namespace ipybox::process::detail {

enum class sweep_action { mark_close_on_exec, close };

// `use_fast_path` false takes the path of systems without the platform's one-call sweep (Linux's
// close_range; tests use it on any kernel); the POSIX sweep has one path only.
void sweep_descriptors_from(int first, sweep_action action, bool use_fast_path);

}  // namespace ipybox::process::detail
