#pragma once
// The one way ipybox starts a process: kernels, stdio MCP servers, pip, interpreter probes and
// srt all go through spawn(). What the child gets is exactly what the request says:
//
//   - its environment: `environment`, nothing else (no inheritance of ours);
//   - its descriptors: 0, 1 and 2 plus the ones in `descriptors`, each at the number asked for;
//     every other descriptor of ours is closed at exec, whatever its close-on-exec flag (Asio
//     and ZeroMQ create some without it): in the child, everything at 3 and above is marked
//     close-on-exec (detail/descriptor_sweep.hpp) before the handed-over ones are put in place;
//   - its own session and process group (setsid), so that signals reach it and all it starts;
//   - default signal dispositions and an empty signal mask (ours blocks SIGINT to forward it);
//   - its control groups (it writes its own pid into each `cgroup_procs` descriptor before
//     exec, so that nothing it runs escapes the group) and its resource limits (setrlimit),
//     applied before the program starts.
//
// The child's steps, in order: join the control groups, sweep and hand over the descriptors,
// apply the limits (after the sweep: RLIMIT_NOFILE must not hide a descriptor from it), enter
// the working directory, exec. Everything between fork and exec is async-signal-safe: the
// strings are prepared first. A failure at any step is reported through a close-on-exec pipe
// and thrown as process_error naming the step and the executable; the child is then already
// reaped, and every descriptor spawn() opened is closed.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ipybox/process/environment.hpp"
#include "ipybox/process/unique_fd.hpp"

namespace ipybox::process {

class process_error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// One of our descriptors, handed to the child as `child_fd`.
struct descriptor_handover {
    int child_fd;
    int parent_fd;
};

// Per-process limits applied with setrlimit in the child (soft = hard). Unset: inherited.
// address_space_bytes is applied on Linux only (src/spawn_platform.hpp says why).
struct process_rlimits {
    std::optional<std::uint64_t> address_space_bytes;  // RLIMIT_AS
    std::optional<std::uint64_t> file_size_bytes;      // RLIMIT_FSIZE: largest file written
    std::optional<std::uint64_t> open_files;           // RLIMIT_NOFILE
    std::optional<std::uint64_t> processes;            // RLIMIT_NPROC (counted per user)
    std::optional<std::uint64_t> cpu_seconds;          // RLIMIT_CPU
};

// Newer kernel interfaces spawn uses where the kernel has them. Turned off, spawn takes the path
// it takes on a kernel without them: only tests turn them off, to run those paths on any kernel.
// (A field rather than an environment variable: modules take configuration as structs, and the
// tests then exercise the very binary that ships.)
struct kernel_interfaces {
    // Linux 5.11's close_range; without: /proc/self/fd is listed (descriptor_sweep.hpp).
    bool bulk_close = true;
    // The system's exit descriptor (exit_fd.hpp: Linux 5.3's pidfd, Darwin's kqueue); without:
    // an exit is learned by waiting.
    bool exit_descriptor = true;
};

struct spawn_request {
    std::filesystem::path executable;  // a path; no PATH search (see find_executable)
    std::vector<std::string> arguments;
    environment_map environment;              // the complete environment
    std::filesystem::path working_directory;  // required: never inherited by accident
    // Must include 0, 1 and 2 (use /dev/null for what the child should not have).
    std::vector<descriptor_handover> descriptors;
    process_rlimits limits;
    std::vector<int> cgroup_procs;  // open cgroup.procs files the child joins before exec
    kernel_interfaces interfaces;
};

struct spawned_process {
    pid_t pid = -1;
    unique_fd exit_fd;  // readable when the child exits (exit_fd.hpp); invalid where there is none
};

// Throws process_error; the message names the executable and what failed.
spawned_process spawn(const spawn_request& request);

// A pipe whose two ends are close-on-exec; throws process_error.
struct pipe_ends {
    unique_fd read;
    unique_fd write;
};
pipe_ends make_pipe();
// /dev/null opened close-on-exec, for the child's standard descriptors.
unique_fd open_dev_null(bool for_writing);

// Sends `signal` to the process group `pid` leads, or to `pid` alone if it has no group.
void signal_group(pid_t pid, int signal);

}  // namespace ipybox::process
