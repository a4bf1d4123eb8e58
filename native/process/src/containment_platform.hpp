#pragma once
// What containment needs of the platform (private to the process module; issue 39's platform
// layer, concern "containment"):
//
//   Linux     control groups (v2, else v1) where ipybox may make them, else rlimits;
//             RLIMIT_AS holds memory under rlimits (linux/cgroup_containment.cpp)
//   Darwin    no control groups: rlimits, and the memory limit held by memory_watchdog, since
//             Darwin does not enforce RLIMIT_AS (posix/cgroup_containment.cpp)
//   portable  as on Darwin
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "ipybox/process/containment.hpp"

namespace ipybox::process::detail {

// The best mechanism this platform allows here (creates and removes a probe group).
containment_mechanism detect_platform_containment(const cgroup_layout& layout);

// What contain() makes for one tree: group directories, then the control files to write in
// them, then the procs files its processes join through.
struct control_setting {
    std::filesystem::path file;
    std::string value;
    bool optional = false;  // a refinement the kernel may lack
};
struct group_plan {
    std::vector<std::filesystem::path> groups;
    std::vector<control_setting> settings;
    std::vector<std::filesystem::path> procs_files;
};
group_plan plan_groups(const containment_mechanism& mechanism, const std::string& name,
                       const resource_limits& limits);

// How often the groups of a tree have met their limits so far (0 without groups).
struct group_counters {
    std::uint64_t oom_kills = 0;
    std::uint64_t pid_refusals = 0;
};
group_counters read_group_counters(containment_kind kind,
                                   const std::vector<std::filesystem::path>& groups);

// True where RLIMIT_AS holds a tree's memory under the rlimits mechanism; false where the
// memory watchdog must (memory_watchdog.hpp).
bool address_space_limit_holds();

// Writes `value` to a control file; returns "" or the reason it failed (containment.cpp).
std::string write_control(const std::filesystem::path& path, const std::string& value);

}  // namespace ipybox::process::detail
