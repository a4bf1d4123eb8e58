#include "tree_kill.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ipybox::process::detail {
namespace {

constexpr int rounds = 200;  // 200 x 10 ms
constexpr std::size_t path_capacity = 4096;

void pause_briefly() {
    timespec wait{0, 10 * 1000 * 1000};
    ::nanosleep(&wait, nullptr);
}

bool join(char* out, const char* directory, const char* name) {
    const std::size_t a = std::strlen(directory);
    const std::size_t b = std::strlen(name);
    if (a + 1 + b + 1 > path_capacity) return false;
    std::memcpy(out, directory, a);
    out[a] = '/';
    std::memcpy(out + a + 1, name, b + 1);
    return true;
}

// Reads a whole small file into `buffer` (NUL-terminated); returns its length or -1.
long read_file(const char* path, char* buffer, std::size_t capacity) {
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    std::size_t used = 0;
    while (used + 1 < capacity) {
        const ssize_t got = ::read(fd, buffer + used, capacity - 1 - used);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        used += static_cast<std::size_t>(got);
    }
    ::close(fd);
    buffer[used] = '\0';
    return static_cast<long>(used);
}

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

bool environment_has_tag(int pid, const char* tag) {
    char path[64];
    char number[24];
    int length = 0;
    for (int rest = pid; rest > 0; rest /= 10)
        number[length++] = static_cast<char>('0' + rest % 10);
    std::memcpy(path, "/proc/", 6);
    for (int i = 0; i < length; ++i) path[6 + i] = number[length - 1 - i];
    std::memcpy(path + 6 + length, "/environ", 9);
    char buffer[64 * 1024];
    const long size = read_file(path, buffer, sizeof buffer);
    if (size <= 0) return false;
    constexpr char prefix[] = "IPYBOX_TREE=";
    const std::size_t prefix_length = sizeof prefix - 1;
    const std::size_t tag_length = std::strlen(tag);
    for (long start = 0; start < size;) {
        const std::size_t entry = std::strlen(buffer + start);
        if (entry == prefix_length + tag_length &&
            std::memcmp(buffer + start, prefix, prefix_length) == 0 &&
            std::memcmp(buffer + start + prefix_length, tag, tag_length) == 0) {
            return true;
        }
        start += static_cast<long>(entry) + 1;
    }
    return false;
}

}  // namespace

int cgroup_members(const char* group, int* out, int capacity) {
    char path[path_capacity];
    if (!join(path, group, "cgroup.procs")) return 0;
    char buffer[16 * 1024];
    if (read_file(path, buffer, sizeof buffer) < 0) return 0;
    return parse_pids(buffer, out, capacity);
}

int end_cgroup(const char* group) {
    char path[path_capacity];
    int signalled = 0;
    if (join(path, group, "cgroup.kill")) {
        const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
            if (::write(fd, "1", 1) == 1) ++signalled;
            ::close(fd);
        }
    }
    int pids[1024];
    for (int round = 0; round < rounds; ++round) {
        const int count = cgroup_members(group, pids, 1024);
        if (count == 0) break;
        for (int i = 0; i < count; ++i) {
            if (::kill(pids[i], SIGKILL) == 0) ++signalled;
        }
        pause_briefly();
    }
    for (int round = 0; round < rounds && ::rmdir(group) != 0 && errno == EBUSY; ++round) {
        pause_briefly();
    }
    return signalled;
}

int tagged_members(const char* tag, int* out, int capacity) {
    const int proc = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (proc < 0) return 0;
    int count = 0;
    const int self = static_cast<int>(::getpid());
    alignas(8) char entries[8192];
    for (;;) {
        const long got = ::syscall(SYS_getdents64, proc, entries, sizeof entries);
        if (got <= 0) break;
        for (long offset = 0; offset < got;) {
            auto* entry = reinterpret_cast<dirent64*>(entries + offset);
            offset += entry->d_reclen;
            int pid = 0;
            bool numeric = entry->d_name[0] != '\0';
            for (const char* c = entry->d_name; *c != '\0'; ++c) {
                if (*c < '0' || *c > '9') {
                    numeric = false;
                    break;
                }
                pid = pid * 10 + (*c - '0');
            }
            if (!numeric || pid == self || count >= capacity) continue;
            if (environment_has_tag(pid, tag)) out[count++] = pid;
        }
    }
    ::close(proc);
    return count;
}

void signal_cgroup(const char* group, int signal) {
    int pids[1024];
    const int count = cgroup_members(group, pids, 1024);
    for (int i = 0; i < count; ++i) ::kill(pids[i], signal);
}

void signal_tagged(const char* tag, int signal) {
    int pids[1024];
    const int count = tagged_members(tag, pids, 1024);
    for (int i = 0; i < count; ++i) ::kill(pids[i], signal);
}

int end_tagged(const char* tag) {
    int signalled = 0;
    int pids[1024];
    for (int round = 0; round < rounds; ++round) {
        const int count = tagged_members(tag, pids, 1024);
        if (count == 0) break;
        for (int i = 0; i < count; ++i) {
            if (::kill(pids[i], SIGKILL) == 0) ++signalled;
        }
        pause_briefly();
    }
    return signalled;
}

}  // namespace ipybox::process::detail
