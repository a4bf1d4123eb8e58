#pragma once
// Ending a process tree, in code that is async-signal-safe (system calls on stack buffers, no
// allocation), so that the keeper can run it in a forked child of a multithreaded ipybox and
// ipybox itself can run the same code.
namespace ipybox::process::detail {

// SIGKILL to every process listed in `<group>/cgroup.procs` (after `cgroup.kill` where the
// kernel has it), repeated until the list is empty or about 2 s have passed; then removes the
// group directory. Returns how many signals were sent.
int end_cgroup(const char* group);

// SIGKILL to every process whose environment holds the entry `IPYBOX_TREE=<tag>`, repeated
// while any is found (at most about 2 s). Returns how many signals were sent.
int end_tagged(const char* tag);

// Sends `signal` once to every process of the group, or carrying the tag.
void signal_cgroup(const char* group, int signal);
void signal_tagged(const char* tag, int signal);

// Appends the pids of `<group>/cgroup.procs` to `out` (at most `capacity`); returns the count.
int cgroup_members(const char* group, int* out, int capacity);
// Likewise for processes carrying the tag.
int tagged_members(const char* tag, int* out, int capacity);

}  // namespace ipybox::process::detail
