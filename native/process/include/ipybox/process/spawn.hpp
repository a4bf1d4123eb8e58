#pragma once
// The one way ipybox starts a process: kernels, stdio MCP servers, pip, interpreter probes and
// srt all go through spawn(). What the child gets is exactly what the request says:
//
//   - its environment: `environment`, nothing else (no inheritance of ours);
//   - its descriptors: 0, 1 and 2 plus the ones in `descriptors`, each at the number asked for;
//     every other descriptor of ours is closed at exec, whatever its close-on-exec flag (Asio
//     and ZeroMQ create some without it): in the child, everything at 3 and above is marked
//     close-on-exec with close_range(2) before the handed-over ones are put in place;
//   - its own session and process group (setsid), so that signals reach it and all it starts;
//   - default signal dispositions and an empty signal mask (ours blocks SIGINT to forward it);
//   - its resource limits (setrlimit) and its control groups (it writes its own pid into each
//     `cgroup_procs` descriptor before exec, so that nothing it runs escapes the group), both
//     applied before the program starts.
//
// Everything between fork and exec is async-signal-safe: the strings are prepared first.
// A failure in the child before exec (no such file, chdir, a limit, joining a cgroup) is reported
// through a close-on-exec pipe and thrown as process_error naming the step and the executable;
// the child is then already reaped.
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
struct process_rlimits {
    std::optional<std::uint64_t> address_space_bytes;  // RLIMIT_AS
    std::optional<std::uint64_t> file_size_bytes;      // RLIMIT_FSIZE: largest file written
    std::optional<std::uint64_t> open_files;           // RLIMIT_NOFILE
    std::optional<std::uint64_t> processes;            // RLIMIT_NPROC (counted per user)
    std::optional<std::uint64_t> cpu_seconds;          // RLIMIT_CPU
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
};

struct spawned_process {
    pid_t pid = -1;
    unique_fd pidfd;  // readable when the child exits; invalid where the kernel has no pidfd
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
