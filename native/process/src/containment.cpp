#include "ipybox/process/containment.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "containment_platform.hpp"
#include "ipybox/core/random.hpp"
#include "keeper.hpp"
#include "memory_watchdog.hpp"
#include "process_table.hpp"
#include "tree_kill.hpp"

namespace ipybox::process {
namespace {

namespace fs = std::filesystem;
constexpr std::uint64_t gib = 1024ULL * 1024 * 1024;
constexpr auto watchdog_interval = std::chrono::milliseconds(100);

// RLIMIT_NPROC counts every process of the real user (on Linux every thread too), not the
// tree's: a user with more than `for_tree` of them already could start no thread or process at
// all under the limit itself. So the value is what the user has now plus `for_tree`, the room
// the tree gets, at most the hard limit in force (which only root could raise).
std::uint64_t user_process_limit(std::uint64_t for_tree) {
    const long used = detail::user_task_count(static_cast<unsigned>(::getuid()));
    std::uint64_t value = for_tree + static_cast<std::uint64_t>(used > 0 ? used : 0);
    rlimit in_force{};
    if (::getrlimit(RLIMIT_NPROC, &in_force) == 0 && in_force.rlim_max != RLIM_INFINITY) {
        value = std::min<std::uint64_t>(value, static_cast<std::uint64_t>(in_force.rlim_max));
    }
    return value;
}

}  // namespace

std::string detail::write_control(const fs::path& path, const std::string& value) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return path.string() + ": " + std::strerror(errno);
    const bool written =
        ::write(fd, value.data(), value.size()) == static_cast<ssize_t>(value.size());
    const int error = errno;
    ::close(fd);
    return written ? std::string() : path.string() + ": " + std::strerror(error);
}

resource_limits default_resource_limits() {
    resource_limits limits;
    std::uint64_t half_ram = 4 * gib;
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page_size = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && page_size > 0) half_ram = std::uint64_t(pages) * std::uint64_t(page_size) / 2;
    limits.memory_bytes = std::min<std::uint64_t>(4 * gib, half_ram);
    limits.processes = 512;
    limits.file_size_bytes = 4 * gib;
    limits.open_files = 4096;
    return limits;
}

containment_mechanism detect_containment(const cgroup_layout& layout) {
    return detail::detect_platform_containment(layout);
}

containment_host::containment_host(const cgroup_layout& layout)
    : mechanism_(detect_containment(layout)), keeper_(std::make_unique<keeper>()) {
    if (mechanism_.memory_watchdog) {
        watchdog_ = std::make_unique<detail::memory_watchdog>(watchdog_interval);
    }
}

containment_host::~containment_host() = default;

std::unique_ptr<containment> containment_host::contain(const resource_limits& limits) {
    std::unique_ptr<containment> tree(new containment());
    tree->limits_ = limits;
    tree->kind_ = mechanism_.kind;
    tree->keeper_ = keeper_.get();
    tree->tag_ = core::random_hex(16);
    tree->address_space_limit_ =
        mechanism_.kind == containment_kind::rlimits && detail::address_space_limit_holds();
    // Unique in this process, whichever host asks: group names carry our pid and this number.
    static std::atomic<unsigned> next_serial{0};
    const unsigned serial = ++next_serial;
    const auto name = "ipybox-" + std::to_string(::getpid()) + "-" + std::to_string(serial);
    const auto plan = detail::plan_groups(mechanism_, name, limits);
    tree->groups_ = plan.groups;
    for (const auto& group : tree->groups_) {
        if (::mkdir(group.c_str(), 0755) != 0) {
            throw process_error("cannot create the control group " + group.string() + ": " +
                                std::strerror(errno));
        }
        keeper_->add_group(group.string());
    }
    for (const auto& setting : plan.settings) {
        if (auto problem = detail::write_control(setting.file, setting.value);
            !problem.empty() && !setting.optional) {
            throw process_error("cannot set a resource limit: " + problem);
        }
    }
    for (const auto& file : plan.procs_files) {
        const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0) {
            throw process_error("cannot open " + file.string() + ": " + std::strerror(errno));
        }
        tree->procs_fds_.push_back(fd);
    }
    keeper_->add_tag(tree->tag_);
    if (watchdog_ && limits.memory_bytes) {
        tree->watchdog_ = watchdog_.get();
        tree->watchdog_breach_ = std::make_shared<std::atomic<bool>>(false);
        watchdog_->watch(tree->tag_, *limits.memory_bytes, tree->watchdog_breach_);
    }
    return tree;
}

containment::~containment() {
    if (watchdog_ != nullptr) watchdog_->unwatch(tag_);
    kill_all();
    for (const int fd : procs_fds_) ::close(fd);
    for (const auto& group : groups_) {
        detail::end_cgroup(group.c_str());  // removes the directory
        if (keeper_ != nullptr) keeper_->remove_group(group.string());
    }
    if (keeper_ != nullptr) keeper_->remove_tag(tag_);
}

process_rlimits containment::rlimits() {
    process_rlimits out;
    out.file_size_bytes = limits_.file_size_bytes;
    out.open_files = limits_.open_files;
    out.cpu_seconds = limits_.cpu_seconds;
    if (kind_ == containment_kind::rlimits) {
        if (address_space_limit_) out.address_space_bytes = limits_.memory_bytes;
        if (limits_.processes) out.processes = user_process_limit(*limits_.processes);
        user_process_limit_ = out.processes;
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
        for (int round = 0; round < detail::kill_rounds; ++round) {
            const int count = detail::cgroup_members(group.c_str(), pids, 1024);
            if (count == 0) break;
            for (int i = 0; i < count; ++i) signalled += ::kill(pids[i], SIGKILL) == 0 ? 1 : 0;
            detail::pause_between_rounds();
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

// Under rlimits nothing counts refusals: the user's processes are at the value the tree was
// given (within a few that ended since the refusal). Root is never refused.
bool containment::user_at_process_limit() const {
    constexpr std::uint64_t slack = 4;
    if (::geteuid() == 0) return false;
    const long used = detail::user_task_count(static_cast<unsigned>(::getuid()));
    return used >= 0 && static_cast<std::uint64_t>(used) + slack >= *user_process_limit_;
}

std::optional<limit_breach> containment::take_breach() {
    const auto memory_breach = [&] {
        return limit_breach{"memory",
                            "its memory limit of " + describe_bytes(*limits_.memory_bytes)};
    };
    if (watchdog_breach_ && watchdog_breach_->exchange(false) && limits_.memory_bytes) {
        return memory_breach();
    }
    const auto counters = detail::read_group_counters(kind_, groups_);
    std::optional<limit_breach> breach;
    if (counters.oom_kills > seen_oom_kills_ && limits_.memory_bytes) {
        breach = memory_breach();
    } else if (counters.pid_refusals > seen_pid_refusals_ && limits_.processes) {
        breach = limit_breach{"processes", "its limit of " + std::to_string(*limits_.processes) +
                                               " processes and threads"};
    }
    seen_oom_kills_ = counters.oom_kills;
    seen_pid_refusals_ = counters.pid_refusals;
    if (!breach && user_process_limit_ && limits_.processes && user_at_process_limit()) {
        breach = limit_breach{
            "processes",
            "its limit of " + std::to_string(*limits_.processes) +
                (detail::user_task_count_has_threads() ? " processes and threads" : " processes")};
    }
    return breach;
}

}  // namespace ipybox::process
