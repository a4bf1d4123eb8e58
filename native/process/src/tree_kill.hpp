#pragma once
// Ending a process tree, in code that is async-signal-safe (system calls on stack buffers, no
// allocation), so that the keeper can run it in a forked child of a multithreaded ipybox and
// ipybox itself can run the same code.
//
// A tree is found two ways: by its control groups (Linux, linux/cgroup_tree.cpp; elsewhere there
// are none and the group functions find nothing), and by its tag, on every platform
// (process_table.hpp): the processes whose environment holds `IPYBOX_TREE=<tag>`, with every
// process in the process group of one of them (one that cleared its environment, or started
// with another, stays in its parent's group unless it makes its own).
namespace ipybox::process::detail {

// How often, and how long apart, the ending loops look again: 200 x 10 ms.
constexpr int kill_rounds = 200;
void pause_between_rounds();

// SIGKILL to every process listed in `<group>/cgroup.procs` (after `cgroup.kill` where the
// kernel has it), repeated until the list is empty or about 2 s have passed; then removes the
// group directory. Returns how many signals were sent.
int end_cgroup(const char* group);

// SIGKILL to every process of the tagged tree, repeated while any is found (at most about 2 s).
// Returns how many signals were sent.
int end_tagged(const char* tag);

// Sends `signal` once to every process of the group, or of the tagged tree.
void signal_cgroup(const char* group, int signal);
void signal_tagged(const char* tag, int signal);

// Appends the pids of `<group>/cgroup.procs` to `out` (at most `capacity`); returns the count.
int cgroup_members(const char* group, int* out, int capacity);
// Likewise for the processes of the tagged tree.
int tagged_members(const char* tag, int* out, int capacity);

// Several tagged trees in one pass over the process table (two where a tree has process groups),
// for a caller that watches many trees every interval (memory_watchdog). For each i < the count
// returned, out[i] is a process of the tree tags[owner[i]]; at most `per_tree` of each tree, so
// that one tree full of processes cannot crowd out another. At most max_scan_trees tags.
constexpr int max_scan_trees = 64;
int tagged_members_of(const char* const* tags, int tag_count, int per_tree, int* out, int* owner,
                      int capacity);

}  // namespace ipybox::process::detail
