#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "../containment_platform.hpp"

namespace ipybox::process::detail {
namespace {

namespace fs = std::filesystem;

fs::path mount_root(const cgroup_layout& layout) {
    return layout.mount_root.empty() ? fs::path("/sys/fs/cgroup") : layout.mount_root;
}

fs::path self_cgroup_file(const cgroup_layout& layout) {
    return layout.self_cgroup_file.empty() ? fs::path("/proc/self/cgroup")
                                           : layout.self_cgroup_file;
}

std::string read_text(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The path of our own cgroup in a hierarchy: "0::/a/b" (v2) or "4:memory:/a/b" (v1).
std::optional<std::string> own_cgroup(const fs::path& self_file, const std::string& controller) {
    std::istringstream lines(read_text(self_file));
    for (std::string line; std::getline(lines, line);) {
        const auto first = line.find(':');
        const auto second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos) continue;
        const auto controllers = line.substr(first + 1, second - first - 1);
        std::stringstream names(controllers);
        bool match = controller.empty() ? controllers.empty() : false;
        for (std::string name; !controller.empty() && std::getline(names, name, ',');) {
            match = match || name == controller;
        }
        if (match) return line.substr(second + 1);
    }
    return std::nullopt;
}

fs::path under(const fs::path& root, const std::string& cgroup_path) {
    return root / fs::path(cgroup_path).relative_path();
}

bool has_words(const std::string& text, std::initializer_list<const char*> words) {
    std::istringstream in(text);
    std::vector<std::string> present{std::istream_iterator<std::string>(in), {}};
    for (const char* word : words) {
        if (std::find(present.begin(), present.end(), word) == present.end()) return false;
    }
    return true;
}

// "make and remove a group there" as the test of write access; returns "" or the reason.
std::string probe_group(const fs::path& parent) {
    const auto probe = parent / ("ipybox-probe-" + std::to_string(::getpid()));
    if (::mkdir(probe.c_str(), 0755) != 0 && errno != EEXIST) {
        return "cannot create a group in " + parent.string() + " (" + std::strerror(errno) + ")";
    }
    ::rmdir(probe.c_str());
    return {};
}

containment_mechanism try_v2(const cgroup_layout& layout) {
    containment_mechanism m;
    const auto own = own_cgroup(self_cgroup_file(layout), "");
    if (!own) {
        m.why =
            "cgroup v2: ipybox's own cgroup is not listed in " + self_cgroup_file(layout).string();
        return m;
    }
    const auto parent = under(mount_root(layout), *own);
    auto delegated = read_text(parent / "cgroup.subtree_control");
    if (!has_words(delegated, {"memory", "pids"})) {
        // Possible only where our group holds no process directly (the no-internal-process rule).
        write_control(parent / "cgroup.subtree_control", "+memory +pids");
        delegated = read_text(parent / "cgroup.subtree_control");
    }
    if (!has_words(delegated, {"memory", "pids"})) {
        m.why = "cgroup v2: ipybox's cgroup " + parent.string() +
                " does not delegate the memory and pids controllers to sub-groups (it holds "
                "processes itself, or is not writable); start ipybox in a delegated scope, e.g. "
                "systemd-run --user --scope -p Delegate=yes ipybox ...";
        return m;
    }
    if (auto problem = probe_group(parent); !problem.empty()) {
        m.why = "cgroup v2: " + problem;
        return m;
    }
    m.kind = containment_kind::cgroup_v2;
    m.v2_parent = parent;
    m.summary = "cgroup v2 (groups under " + parent.string() + ")";
    return m;
}

containment_mechanism try_v1(const cgroup_layout& layout) {
    containment_mechanism m;
    const auto memory = own_cgroup(self_cgroup_file(layout), "memory");
    const auto pids = own_cgroup(self_cgroup_file(layout), "pids");
    if (!memory || !pids || !fs::exists(mount_root(layout) / "memory") ||
        !fs::exists(mount_root(layout) / "pids")) {
        m.why = "cgroup v1: the memory and pids hierarchies are not both mounted";
        return m;
    }
    const auto memory_parent = under(mount_root(layout) / "memory", *memory);
    const auto pids_parent = under(mount_root(layout) / "pids", *pids);
    for (const auto& parent : {memory_parent, pids_parent}) {
        if (auto problem = probe_group(parent); !problem.empty()) {
            m.why = "cgroup v1: " + problem + "; run ipybox as a user who may write there";
            return m;
        }
    }
    m.kind = containment_kind::cgroup_v1;
    m.v1_memory_parent = memory_parent;
    m.v1_pids_parent = pids_parent;
    m.summary = "cgroup v1 (memory groups under " + memory_parent.string() + ", pids under " +
                pids_parent.string() + ")";
    return m;
}

std::uint64_t counter(const fs::path& file, const std::string& key) {
    std::istringstream lines(read_text(file));
    for (std::string name; lines >> name;) {
        std::uint64_t value = 0;
        if (!(lines >> value)) break;
        if (name == key) return value;
    }
    return 0;
}

}  // namespace

containment_mechanism detect_platform_containment(const cgroup_layout& layout) {
    std::string why;
    if (fs::exists(mount_root(layout) / "cgroup.controllers")) {
        auto v2 = try_v2(layout);
        if (v2.kind == containment_kind::cgroup_v2) return v2;
        why = v2.why;
    } else {
        auto v1 = try_v1(layout);
        if (v1.kind == containment_kind::cgroup_v1) return v1;
        why = v1.why;
    }
    containment_mechanism fallback;
    fallback.summary = "rlimits only (no cgroup)";
    fallback.why = why;
    return fallback;
}

group_plan plan_groups(const containment_mechanism& mechanism, const std::string& name,
                       const resource_limits& limits) {
    group_plan plan;
    if (mechanism.kind == containment_kind::cgroup_v2) {
        const auto group = mechanism.v2_parent / name;
        plan.groups.push_back(group);
        if (limits.memory_bytes) {
            plan.settings.push_back({group / "memory.max", std::to_string(*limits.memory_bytes)});
            // Refinements the kernel may lack.
            plan.settings.push_back({group / "memory.swap.max", "0", true});
            plan.settings.push_back({group / "memory.oom.group", "1", true});
        }
        if (limits.processes) {
            plan.settings.push_back({group / "pids.max", std::to_string(*limits.processes)});
        }
    } else if (mechanism.kind == containment_kind::cgroup_v1) {
        const auto memory = mechanism.v1_memory_parent / name;
        const auto pids = mechanism.v1_pids_parent / name;
        plan.groups = {memory, pids};
        if (limits.memory_bytes) {
            const auto value = std::to_string(*limits.memory_bytes);
            plan.settings.push_back({memory / "memory.limit_in_bytes", value});
            if (fs::exists(mechanism.v1_memory_parent / "memory.memsw.limit_in_bytes")) {
                plan.settings.push_back({memory / "memory.memsw.limit_in_bytes", value});
            }
        }
        if (limits.processes) {
            plan.settings.push_back({pids / "pids.max", std::to_string(*limits.processes)});
        }
    }
    for (const auto& group : plan.groups) plan.procs_files.push_back(group / "cgroup.procs");
    return plan;
}

group_counters read_group_counters(containment_kind kind, const std::vector<fs::path>& groups) {
    if (kind == containment_kind::rlimits || groups.empty()) return {};
    const auto memory_events = kind == containment_kind::cgroup_v2
                                   ? groups[0] / "memory.events"
                                   : groups[0] / "memory.oom_control";
    return {counter(memory_events, "oom_kill"), counter(groups.back() / "pids.events", "max")};
}

bool address_space_limit_holds() {
    return true;
}

}  // namespace ipybox::process::detail
