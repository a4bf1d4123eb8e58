#pragma once
// What another process of the same user can change about a running process without signalling
// it, and what would then follow that process into its use: its resource limits (prlimit(2)
// works across processes of one user, dumpable or not), and for each of its threads the nice
// value, the scheduling policy, the CPU affinity and the I/O priority; and its OOM score
// adjustment. A kernel in the kernel template's sandbox can reach the template and the spare
// this way; a spare whose limits a sibling lowered would be killed by them once handed over.
//
// Read with syscalls on our own PIDs (prlimit, getpriority, sched_getscheduler,
// sched_getaffinity, ioprio_get) and /proc (threads, oom_score_adj) on Linux
// (src/linux/process_attributes.cpp). Off Linux no kernel is forked, so nothing needs them:
// attributes_of gives nullopt there (src/posix/process_attributes.cpp). Thread-safe: no state.
#include <sys/resource.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "ipybox/process/spawn.hpp"

namespace ipybox::process {

struct limit_pair {
    std::uint64_t soft = 0;
    std::uint64_t hard = 0;  // RLIM_INFINITY for unlimited
    bool operator==(const limit_pair&) const = default;
};

// What each thread has; a thread inherits them from the one that started it.
struct thread_attributes {
    int nice = 0;
    int policy = 0;        // SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, ...
    std::string affinity;  // the CPU set as a hexadecimal mask, lowest CPU last
    int io_priority = 0;   // ioprio_get's value (class and level)
    bool operator==(const thread_attributes&) const = default;
};

struct process_attributes {
    std::array<limit_pair, RLIM_NLIMITS> limits{};  // by RLIMIT_* number
    int oom_score_adj = 0;
    thread_attributes threads;  // of its main thread; every thread is expected to have them
    bool operator==(const process_attributes&) const = default;
};

// The attributes of `pid` (as our PID namespace sees it) and of its main thread; nullopt when
// they cannot be read (it is gone, or not ours).
std::optional<process_attributes> attributes_of(int pid);

// `base` with the limits `limits` sets, soft = hard, as spawn and the kernel template apply
// them.
process_attributes with_limits(process_attributes base, const process_rlimits& limits);

// "" when `pid` and every thread of it have the attributes `expected`; else what differs, in
// words ("its limit of CPU seconds is 2 (hard 2) instead of unlimited (hard unlimited)", "thread
// 4321 has nice 19 instead of 0"), or "it has exited" when it cannot be read.
std::string attribute_trouble(int pid, const process_attributes& expected);

}  // namespace ipybox::process
