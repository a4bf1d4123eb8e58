#include "../process_table.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

#include "../small_files.hpp"

namespace ipybox::process::detail {
namespace {

// "/proc/<pid>/<leaf>" into `out` (at least 64 bytes).
void proc_path(char* out, int pid, const char* leaf) {
    char number[24];
    int length = 0;
    for (int rest = pid; rest > 0; rest /= 10)
        number[length++] = static_cast<char>('0' + rest % 10);
    std::memcpy(out, "/proc/", 6);
    for (int i = 0; i < length; ++i) out[6 + i] = number[length - 1 - i];
    out[6 + length] = '/';
    std::strcpy(out + 7 + length, leaf);
}

// The number after `key` ("Uid:", "Threads:") at the start of a line of `status`; -1 if none.
long status_field(const char* status, const char* key) {
    const std::size_t key_length = std::strlen(key);
    for (const char* line = status; *line != '\0';) {
        if (std::strncmp(line, key, key_length) == 0) {
            const char* c = line + key_length;
            while (*c == ' ' || *c == '\t') ++c;
            if (*c < '0' || *c > '9') return -1;
            long value = 0;
            for (; *c >= '0' && *c <= '9'; ++c) value = value * 10 + (*c - '0');
            return value;
        }
        const char* end = std::strchr(line, '\n');
        if (end == nullptr) break;
        line = end + 1;
    }
    return -1;
}

struct task_count {
    long uid;
    long tasks;
};

// Adds the threads of `pid` to the count when its real uid (the first of "Uid:") is the one
// counted. A process that is gone between the listing and the read counts for nothing.
void count_tasks(int pid, void* context) {
    auto& count = *static_cast<task_count*>(context);
    char path[64];
    proc_path(path, pid, "status");
    char status[4096];
    if (read_small_file(path, status, sizeof status) <= 0) return;
    if (status_field(status, "Uid:") != count.uid) return;
    const long threads = status_field(status, "Threads:");
    count.tasks += threads > 0 ? threads : 1;
}

}  // namespace

void for_each_process(process_visitor visit, void* context) {
    const int proc = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (proc < 0) return;
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
            if (numeric && pid != self) visit(pid, context);
        }
    }
    ::close(proc);
}

bool environment_value(int pid, const char* name, char* out, std::size_t capacity) {
    char path[64];
    proc_path(path, pid, "environ");
    char buffer[64 * 1024];
    const long size = read_small_file(path, buffer, sizeof buffer);
    if (size <= 0 || capacity == 0) return false;
    const std::size_t name_length = std::strlen(name);
    for (long start = 0; start < size;) {
        const char* entry = buffer + start;
        const std::size_t length = std::strlen(entry);
        if (length > name_length && std::memcmp(entry, name, name_length) == 0 &&
            entry[name_length] == '=') {
            const std::size_t value = length - name_length - 1;
            if (value + 1 > capacity) return false;
            std::memcpy(out, entry + name_length + 1, value + 1);
            return true;
        }
        start += static_cast<long>(length) + 1;
    }
    return false;
}

std::uint64_t resident_bytes(int pid) {
    char path[64];
    proc_path(path, pid, "statm");
    char buffer[256];
    if (read_small_file(path, buffer, sizeof buffer) <= 0) return 0;
    // "size resident shared ...", in pages.
    const char* c = buffer;
    while (*c != '\0' && *c != ' ') ++c;
    std::uint64_t pages = 0;
    for (++c; *c >= '0' && *c <= '9'; ++c)
        pages = pages * 10 + static_cast<std::uint64_t>(*c - '0');
    return pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

bool user_task_count_has_threads() {
    return true;
}

long user_task_count(unsigned uid) {
    if (::access("/proc/self/status", R_OK) != 0) return -1;
    task_count count{static_cast<long>(uid), 0};
    for_each_process(count_tasks, &count);
    count_tasks(static_cast<int>(::getpid()), &count);  // for_each_process leaves us out
    return count.tasks;
}

}  // namespace ipybox::process::detail
