#include "ipybox/process/process_attributes.hpp"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ipybox::process {
namespace {

constexpr int ioprio_who_process = 1;  // IOPRIO_WHO_PROCESS: one thread, by its ID

const char* limit_name(int resource) {
    switch (resource) {
        case RLIMIT_CPU:
            return "CPU seconds";
        case RLIMIT_FSIZE:
            return "file size";
        case RLIMIT_DATA:
            return "data size";
        case RLIMIT_STACK:
            return "stack size";
        case RLIMIT_CORE:
            return "core file size";
        case RLIMIT_RSS:
            return "resident set";
        case RLIMIT_NPROC:
            return "processes";
        case RLIMIT_NOFILE:
            return "open files";
        case RLIMIT_MEMLOCK:
            return "locked memory";
        case RLIMIT_AS:
            return "address space";
        case RLIMIT_LOCKS:
            return "file locks";
        case RLIMIT_SIGPENDING:
            return "pending signals";
        case RLIMIT_MSGQUEUE:
            return "message queue bytes";
        case RLIMIT_NICE:
            return "nice ceiling";
        case RLIMIT_RTPRIO:
            return "real-time priority";
        case RLIMIT_RTTIME:
            return "real-time timeout";
        default:
            return "resource";
    }
}

std::string limit_text(std::uint64_t value) {
    return value == RLIM_INFINITY ? std::string("unlimited") : std::to_string(value);
}

std::string pair_text(const limit_pair& limit) {
    return limit_text(limit.soft) + " (hard " + limit_text(limit.hard) + ")";
}

std::optional<thread_attributes> thread_attributes_of(int tid) {
    thread_attributes out;
    errno = 0;
    out.nice = ::getpriority(PRIO_PROCESS, static_cast<id_t>(tid));
    if (errno != 0) return std::nullopt;
    out.policy = ::sched_getscheduler(tid);
    if (out.policy < 0) return std::nullopt;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(tid, sizeof set, &set) != 0) return std::nullopt;
    std::ostringstream mask;
    bool leading = true;
    for (int cpu = CPU_SETSIZE - 4; cpu >= 0; cpu -= 4) {
        int nibble = 0;
        for (int bit = 0; bit < 4; ++bit) nibble |= CPU_ISSET(cpu + bit, &set) ? 1 << bit : 0;
        if (leading && nibble == 0 && cpu > 0) continue;
        leading = false;
        mask << std::hex << nibble;
    }
    out.affinity = mask.str();
    const long io = ::syscall(SYS_ioprio_get, ioprio_who_process, tid);
    if (io < 0) return std::nullopt;
    out.io_priority = static_cast<int>(io);
    return out;
}

// What differs between two threads' attributes, as "<what> is <actual> instead of <expected>"
// phrases joined by "; ".
std::string thread_differences(const thread_attributes& expected, const thread_attributes& actual) {
    std::string out;
    const auto add = [&](const std::string& what, const auto& want, const auto& got) {
        if (want == got) return;
        std::ostringstream text;
        text << what << ' ' << got << " instead of " << want;
        out += (out.empty() ? "" : "; ") + text.str();
    };
    add("nice", expected.nice, actual.nice);
    add("scheduling policy", expected.policy, actual.policy);
    add("CPU affinity", expected.affinity, actual.affinity);
    add("I/O priority", expected.io_priority, actual.io_priority);
    return out;
}

}  // namespace

std::optional<process_attributes> attributes_of(int pid) {
    if (pid <= 0) return std::nullopt;
    process_attributes out;
    for (int resource = 0; resource < RLIM_NLIMITS; ++resource) {
        rlimit limit{};
        if (::prlimit(pid, static_cast<__rlimit_resource>(resource), nullptr, &limit) != 0) {
            return std::nullopt;
        }
        out.limits[static_cast<std::size_t>(resource)] = {limit.rlim_cur, limit.rlim_max};
    }
    std::ifstream adjustment("/proc/" + std::to_string(pid) + "/oom_score_adj");
    if (!(adjustment >> out.oom_score_adj)) return std::nullopt;
    const auto threads = thread_attributes_of(pid);
    if (!threads) return std::nullopt;
    out.threads = *threads;
    return out;
}

process_attributes with_limits(process_attributes base, const process_rlimits& limits) {
    const auto set = [&](int resource, const std::optional<std::uint64_t>& value) {
        if (value) base.limits[static_cast<std::size_t>(resource)] = {*value, *value};
    };
    set(RLIMIT_AS, limits.address_space_bytes);
    set(RLIMIT_FSIZE, limits.file_size_bytes);
    set(RLIMIT_NOFILE, limits.open_files);
    set(RLIMIT_NPROC, limits.processes);
    set(RLIMIT_CPU, limits.cpu_seconds);
    return base;
}

std::string attribute_trouble(int pid, const process_attributes& expected) {
    const auto actual = attributes_of(pid);
    if (!actual) return "it has exited";
    std::string out;
    const auto add = [&](const std::string& text) { out += (out.empty() ? "" : "; ") + text; };
    for (int resource = 0; resource < RLIM_NLIMITS; ++resource) {
        const auto index = static_cast<std::size_t>(resource);
        if (actual->limits[index] == expected.limits[index]) continue;
        add(std::string("its limit of ") + limit_name(resource) + " is " +
            pair_text(actual->limits[index]) + " instead of " + pair_text(expected.limits[index]));
    }
    if (actual->oom_score_adj != expected.oom_score_adj) {
        add("its OOM score adjustment is " + std::to_string(actual->oom_score_adj) +
            " instead of " + std::to_string(expected.oom_score_adj));
    }
    std::error_code error;
    const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
    for (const auto& entry : std::filesystem::directory_iterator(tasks, error)) {
        int tid = 0;
        try {
            tid = std::stoi(entry.path().filename().string());
        } catch (const std::exception&) {
            continue;
        }
        const auto thread = thread_attributes_of(tid);
        if (!thread) continue;  // ended meanwhile
        if (const auto differs = thread_differences(expected.threads, *thread); !differs.empty()) {
            add("thread " + std::to_string(tid) + " has " + differs);
        }
    }
    if (error) add("its threads cannot be listed: " + error.message());
    return out;
}

}  // namespace ipybox::process
