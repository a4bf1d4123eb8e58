#include "../containment_platform.hpp"

// No control groups off Linux: rlimits, with the memory limit held by the memory watchdog
// (Darwin accepts RLIMIT_AS but does not enforce it).
namespace ipybox::process::detail {

containment_mechanism detect_platform_containment(const cgroup_layout&) {
    containment_mechanism mechanism;
    mechanism.kind = containment_kind::rlimits;
    mechanism.memory_watchdog = true;
    mechanism.summary = "rlimits, with the memory limit held by a resident-memory watchdog";
    mechanism.why = "this platform has no control groups";
    return mechanism;
}

group_plan plan_groups(const containment_mechanism&, const std::string&, const resource_limits&) {
    return {};
}

group_counters read_group_counters(containment_kind, const std::vector<std::filesystem::path>&) {
    return {};
}

bool address_space_limit_holds() {
    return false;
}

}  // namespace ipybox::process::detail
