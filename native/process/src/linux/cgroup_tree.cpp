#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "../small_files.hpp"
#include "../tree_kill.hpp"

namespace ipybox::process::detail {
namespace {

int parse_pids(const char* text, int* out, int capacity) {
    int count = 0;
    long value = -1;
    for (const char* c = text;; ++c) {
        if (*c >= '0' && *c <= '9') {
            value = (value < 0 ? 0 : value * 10) + (*c - '0');
            continue;
        }
        if (value > 0 && count < capacity) out[count++] = static_cast<int>(value);
        value = -1;
        if (*c == '\0') break;
    }
    return count;
}

}  // namespace

int cgroup_members(const char* group, int* out, int capacity) {
    char path[path_capacity];
    if (!join_path(path, group, "cgroup.procs")) return 0;
    char buffer[16 * 1024];
    if (read_small_file(path, buffer, sizeof buffer) < 0) return 0;
    return parse_pids(buffer, out, capacity);
}

int end_cgroup(const char* group) {
    char path[path_capacity];
    int signalled = 0;
    if (join_path(path, group, "cgroup.kill")) {
        const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
            if (::write(fd, "1", 1) == 1) ++signalled;
            ::close(fd);
        }
    }
    int pids[1024];
    for (int round = 0; round < kill_rounds; ++round) {
        const int count = cgroup_members(group, pids, 1024);
        if (count == 0) break;
        for (int i = 0; i < count; ++i) {
            if (::kill(pids[i], SIGKILL) == 0) ++signalled;
        }
        pause_between_rounds();
    }
    for (int round = 0; round < kill_rounds && ::rmdir(group) != 0 && errno == EBUSY; ++round) {
        pause_between_rounds();
    }
    return signalled;
}

void signal_cgroup(const char* group, int signal) {
    int pids[1024];
    const int count = cgroup_members(group, pids, 1024);
    for (int i = 0; i < count; ++i) ::kill(pids[i], signal);
}

}  // namespace ipybox::process::detail
