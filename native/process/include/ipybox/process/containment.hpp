#pragma once
// Containment of a process tree (a kernel with everything it starts): resource limits, and an
// end for every process in the tree, however the tree or ipybox ends.
//
// Mechanisms, best first (containment_host::mechanism() says which one is in force and why):
//   - cgroup v2: a group per tree under ipybox's own cgroup, when that cgroup delegates the
//     memory and pids controllers to sub-groups (systemd: a scope or service with Delegate=yes);
//     memory.max, memory.swap.max, pids.max; the tree is ended with cgroup.kill (or a kill loop).
//   - cgroup v1: a group per tree in the memory and pids hierarchies under ipybox's own
//     (needs write access there: root, or a delegated hierarchy); memory.limit_in_bytes (and
//     memsw), pids.max; the tree is ended by a kill loop over cgroup.procs.
//   - rlimits only: RLIMIT_AS stands in for the memory limit on Linux (Darwin does not enforce
//     it: there a watchdog thread ends a tree whose resident memory is above the limit, see
//     src/memory_watchdog.hpp for what that does not cover) and RLIMIT_NPROC for the process
//     limit. That one counts all of the user's processes (Linux: and threads) and is ignored for
//     root, so the tree gets the user's count at its start plus its limit (rlimits()): room for
//     that many more, shared with whatever else of the user's starts meanwhile, at most the hard
//     limit in force. The tree is found by a tag in its environment
//     (IPYBOX_TREE=<tag>, inherited by every descendant that does not clear its environment)
//     and by the process groups of the tagged processes.
// Control groups are Linux's; on Darwin (and in the portable build) only rlimits apply.
// In every mechanism RLIMIT_FSIZE (largest file) and RLIMIT_NOFILE (open files) are set, and
// RLIMIT_CPU when a CPU limit is asked for.
//
// A child joins its group before exec (spawn_request::cgroup_procs), so nothing it runs is ever
// outside. If ipybox dies (even by SIGKILL), a keeper process it forked at start-up notices
// (end of file on a socket only ipybox holds) and ends every tree still registered, then removes
// the groups.
//
// Thread-safety: containment_host is safe to share; a containment is used by one owner.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ipybox/core/byte_sizes.hpp"
#include "ipybox/process/spawn.hpp"

namespace ipybox::process {

class keeper;
namespace detail {
class memory_watchdog;
}

struct resource_limits {
    std::optional<std::uint64_t> memory_bytes;
    std::optional<std::uint64_t> processes;  // processes and threads
    std::optional<std::uint64_t> file_size_bytes;
    std::optional<std::uint64_t> open_files;
    std::optional<std::uint64_t> cpu_seconds;
};

// The defaults: memory the smaller of 4 GiB and half the RAM, 512 processes, 4 GiB per file,
// 4096 open files, no CPU limit.
resource_limits default_resource_limits();
// Sizes in limits and messages (core/byte_sizes.hpp).
using core::describe_bytes;
using core::parse_bytes;

enum class containment_kind { cgroup_v2, cgroup_v1, rlimits };

struct containment_mechanism {
    containment_kind kind = containment_kind::rlimits;
    std::string summary;              // "cgroup v2 (/sys/fs/cgroup/user.slice/...)", "rlimits only"
    std::string why;                  // why not a better one, or "" when the best applies
    bool memory_watchdog = false;     // rlimits: memory held by the watchdog, not RLIMIT_AS
    std::filesystem::path v2_parent;  // where groups are made (cgroup_v2)
    std::filesystem::path v1_memory_parent, v1_pids_parent;  // (cgroup_v1)
};

// Where the cgroup filesystems are (Linux): empty means the system's, /sys/fs/cgroup and
// /proc/self/cgroup; tests point these at fakes.
struct cgroup_layout {
    std::filesystem::path mount_root;
    std::filesystem::path self_cgroup_file;
};

// Finds the best mechanism (creates and removes a probe group to check write access).
containment_mechanism detect_containment(const cgroup_layout& layout = {});

// What ended a contained tree, when a limit did.
struct limit_breach {
    std::string limit;   // "memory", "processes"
    std::string detail;  // "its memory limit of 2 GiB"
};

class containment {
  public:
    ~containment();  // ends the tree (kill_all) and removes its groups
    containment(const containment&) = delete;
    containment& operator=(const containment&) = delete;

    // For spawn_request / spawn_options.
    const std::vector<int>& cgroup_procs() const { return procs_fds_; }
    // The rlimits for a child of the tree. Under rlimits only, RLIMIT_NPROC is worked out anew
    // on each call from the user's processes now (above), and kept for take_breach(): call it
    // for each child as it starts.
    process_rlimits rlimits();
    // Variables to add to the child's environment (the tree tag).
    std::vector<std::pair<std::string, std::string>> environment() const;

    // SIGKILL to every process of the tree, repeated until none is left (or 2 s). Returns how
    // many processes were signalled.
    int kill_all();
    // One round of kill_all, without waiting: SIGKILL to every process of the tree found now.
    // Returns how many were signalled (0: none was left). For a loop that repeats it on a timer.
    int kill_members_once();
    // Processes of the tree still alive (for tests and doctor).
    std::vector<int> members() const;
    // A limit the tree ran into since the last call (memory: an OOM kill; processes: a refused
    // fork), or nullopt. Under rlimits only a process breach is known only by its state: the
    // user's processes (Linux: and threads) are at the value the latest child was given, as
    // they are when the code that was refused keeps what it started; not for root.
    std::optional<limit_breach> take_breach();

    const resource_limits& limits() const { return limits_; }

  private:
    friend class containment_host;
    containment() = default;
    bool user_at_process_limit() const;

    resource_limits limits_;
    containment_kind kind_ = containment_kind::rlimits;
    std::vector<std::filesystem::path> groups_;  // cgroup directories (one for v2, two for v1)
    std::vector<int> procs_fds_;
    std::string tag_;
    std::uint64_t seen_oom_kills_ = 0;
    std::uint64_t seen_pid_refusals_ = 0;
    // Under rlimits only: the RLIMIT_NPROC value rlimits() gave the latest child.
    std::optional<std::uint64_t> user_process_limit_;
    bool address_space_limit_ = false;  // RLIMIT_AS holds the memory limit (rlimits only)
    std::shared_ptr<std::atomic<bool>> watchdog_breach_;  // set by the memory watchdog
    keeper* keeper_ = nullptr;
    detail::memory_watchdog* watchdog_ = nullptr;
};

class containment_host {
  public:
    // Detects the mechanism and forks the keeper. Never throws for a missing mechanism: it
    // falls back to rlimits (say so with mechanism()).
    explicit containment_host(const cgroup_layout& layout = {});
    ~containment_host();
    containment_host(const containment_host&) = delete;
    containment_host& operator=(const containment_host&) = delete;

    const containment_mechanism& mechanism() const { return mechanism_; }
    // A new, empty group with `limits` applied. Throws process_error when the group cannot be
    // made although the mechanism was detected (the error names the file).
    std::unique_ptr<containment> contain(const resource_limits& limits);

  private:
    containment_mechanism mechanism_;
    std::unique_ptr<keeper> keeper_;
    std::unique_ptr<detail::memory_watchdog> watchdog_;  // with mechanism_.memory_watchdog
};

}  // namespace ipybox::process
