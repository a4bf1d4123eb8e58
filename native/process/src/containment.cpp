#include "ipybox/process/containment.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "ipybox/core/random.hpp"
#include "keeper.hpp"
#include "tree_kill.hpp"

namespace ipybox::process {
namespace {

namespace fs = std::filesystem;
constexpr std::uint64_t gib = 1024ULL * 1024 * 1024;

std::string read_text(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Writes `value` to a control file; returns "" or the reason it failed.
std::string write_control(const fs::path& path, const std::string& value) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return path.string() + ": " + std::strerror(errno);
    const bool written =
        ::write(fd, value.data(), value.size()) == static_cast<ssize_t>(value.size());
    const int error = errno;
    ::close(fd);
    return written ? std::string() : path.string() + ": " + std::strerror(error);
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
    const auto own = own_cgroup(layout.self_cgroup_file, "");
    if (!own) {
        m.why =
            "cgroup v2: ipybox's own cgroup is not listed in " + layout.self_cgroup_file.string();
        return m;
    }
    const auto parent = under(layout.mount_root, *own);
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
    const auto memory = own_cgroup(layout.self_cgroup_file, "memory");
    const auto pids = own_cgroup(layout.self_cgroup_file, "pids");
    if (!memory || !pids || !fs::exists(layout.mount_root / "memory") ||
        !fs::exists(layout.mount_root / "pids")) {
        m.why = "cgroup v1: the memory and pids hierarchies are not both mounted";
        return m;
    }
    const auto memory_parent = under(layout.mount_root / "memory", *memory);
    const auto pids_parent = under(layout.mount_root / "pids", *pids);
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

resource_limits default_resource_limits() {
    resource_limits limits;
    struct sysinfo info {};
    std::uint64_t half_ram = 4 * gib;
    if (::sysinfo(&info) == 0) half_ram = std::uint64_t(info.totalram) * info.mem_unit / 2;
    limits.memory_bytes = std::min<std::uint64_t>(4 * gib, half_ram);
    limits.processes = 512;
    limits.file_size_bytes = 4 * gib;
    limits.open_files = 4096;
    return limits;
}

containment_mechanism detect_containment(const cgroup_layout& layout) {
    std::string why;
    if (fs::exists(layout.mount_root / "cgroup.controllers")) {
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

containment_host::containment_host(const cgroup_layout& layout)
    : mechanism_(detect_containment(layout)), keeper_(std::make_unique<keeper>()) {}

containment_host::~containment_host() = default;

std::unique_ptr<containment> containment_host::contain(const resource_limits& limits) {
    std::unique_ptr<containment> tree(new containment());
    tree->limits_ = limits;
    tree->kind_ = mechanism_.kind;
    tree->keeper_ = keeper_.get();
    tree->tag_ = core::random_hex(16);
    // Unique in this process, whichever host asks: group names carry our pid and this number.
    static std::atomic<unsigned> next_serial{0};
    const unsigned serial = ++next_serial;
    const auto name = "ipybox-" + std::to_string(::getpid()) + "-" + std::to_string(serial);
    std::vector<std::pair<fs::path, std::string>> settings;  // control file, value
    if (mechanism_.kind == containment_kind::cgroup_v2) {
        const auto group = mechanism_.v2_parent / name;
        tree->groups_.push_back(group);
        if (limits.memory_bytes) {
            settings.emplace_back(group / "memory.max", std::to_string(*limits.memory_bytes));
            settings.emplace_back(group / "memory.swap.max", "0");
            settings.emplace_back(group / "memory.oom.group", "1");
        }
        if (limits.processes) {
            settings.emplace_back(group / "pids.max", std::to_string(*limits.processes));
        }
    } else if (mechanism_.kind == containment_kind::cgroup_v1) {
        const auto memory = mechanism_.v1_memory_parent / name;
        const auto pids = mechanism_.v1_pids_parent / name;
        tree->groups_ = {memory, pids};
        if (limits.memory_bytes) {
            const auto value = std::to_string(*limits.memory_bytes);
            settings.emplace_back(memory / "memory.limit_in_bytes", value);
            if (fs::exists(mechanism_.v1_memory_parent / "memory.memsw.limit_in_bytes")) {
                settings.emplace_back(memory / "memory.memsw.limit_in_bytes", value);
            }
        }
        if (limits.processes) {
            settings.emplace_back(pids / "pids.max", std::to_string(*limits.processes));
        }
    }
    for (const auto& group : tree->groups_) {
        if (::mkdir(group.c_str(), 0755) != 0) {
            throw process_error("cannot create the control group " + group.string() + ": " +
                                std::strerror(errno));
        }
        keeper_->add_group(group.string());
    }
    for (const auto& [file, value] : settings) {
        // memory.swap.max and memory.oom.group are refinements; the kernel may lack them.
        const bool optional =
            file.filename() == "memory.swap.max" || file.filename() == "memory.oom.group";
        if (auto problem = write_control(file, value); !problem.empty() && !optional) {
            throw process_error("cannot set a resource limit: " + problem);
        }
    }
    for (const auto& group : tree->groups_) {
        const int fd = ::open((group / "cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0) {
            throw process_error("cannot open " + (group / "cgroup.procs").string() + ": " +
                                std::strerror(errno));
        }
        tree->procs_fds_.push_back(fd);
    }
    keeper_->add_tag(tree->tag_);
    return tree;
}

containment::~containment() {
    kill_all();
    for (const int fd : procs_fds_) ::close(fd);
    for (const auto& group : groups_) {
        detail::end_cgroup(group.c_str());  // removes the directory
        if (keeper_ != nullptr) keeper_->remove_group(group.string());
    }
    if (keeper_ != nullptr) keeper_->remove_tag(tag_);
}

process_rlimits containment::rlimits() const {
    process_rlimits out;
    out.file_size_bytes = limits_.file_size_bytes;
    out.open_files = limits_.open_files;
    out.cpu_seconds = limits_.cpu_seconds;
    if (kind_ == containment_kind::rlimits) {
        out.address_space_bytes = limits_.memory_bytes;
        out.processes = limits_.processes;
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> containment::environment() const {
    return {{"IPYBOX_TREE", tag_}};
}

int containment::kill_all() {
    int signalled = detail::end_tagged(tag_.c_str());
    for (const auto& group : groups_) {
        int pids[1024];
        for (int round = 0; round < 200; ++round) {
            const int count = detail::cgroup_members(group.c_str(), pids, 1024);
            if (count == 0) break;
            for (int i = 0; i < count; ++i) signalled += ::kill(pids[i], SIGKILL) == 0 ? 1 : 0;
            ::usleep(10000);
        }
    }
    return signalled;
}

int containment::kill_members_once() {
    int signalled = 0;
    for (const int pid : members()) signalled += ::kill(pid, SIGKILL) == 0 ? 1 : 0;
    return signalled;
}

std::vector<int> containment::members() const {
    std::vector<int> out;
    int pids[1024];
    const auto add = [&](int count) {
        for (int i = 0; i < count; ++i) {
            if (std::find(out.begin(), out.end(), pids[i]) == out.end()) out.push_back(pids[i]);
        }
    };
    for (const auto& group : groups_) add(detail::cgroup_members(group.c_str(), pids, 1024));
    add(detail::tagged_members(tag_.c_str(), pids, 1024));
    return out;
}

std::optional<limit_breach> containment::take_breach() {
    if (kind_ == containment_kind::rlimits || groups_.empty()) return std::nullopt;
    const auto memory_events = kind_ == containment_kind::cgroup_v2
                                   ? groups_[0] / "memory.events"
                                   : groups_[0] / "memory.oom_control";
    const auto pids_events = groups_.back() / "pids.events";
    const auto oom_kills = counter(memory_events, "oom_kill");
    const auto pid_refusals = counter(pids_events, "max");
    std::optional<limit_breach> breach;
    if (oom_kills > seen_oom_kills_ && limits_.memory_bytes) {
        breach =
            limit_breach{"memory", "its memory limit of " + describe_bytes(*limits_.memory_bytes)};
    } else if (pid_refusals > seen_pid_refusals_ && limits_.processes) {
        breach = limit_breach{"processes", "its limit of " + std::to_string(*limits_.processes) +
                                               " processes and threads"};
    }
    seen_oom_kills_ = oom_kills;
    seen_pid_refusals_ = pid_refusals;
    return breach;
}

}  // namespace ipybox::process
