#include "../process_table.hpp"

#include <libproc.h>
#include <sys/proc_info.h>
#include <sys/sysctl.h>
#include <unistd.h>

#include <cstring>

namespace ipybox::process::detail {

void for_each_process(process_visitor visit, void* context) {
    int pids[16384];
    const int count = ::proc_listallpids(pids, static_cast<int>(sizeof pids));
    const int self = static_cast<int>(::getpid());
    for (int i = 0; i < count && i < 16384; ++i) {
        if (pids[i] > 0 && pids[i] != self) visit(pids[i], context);
    }
}

// KERN_PROCARGS2's layout: argc (an int), the executable's path, NUL padding, argc arguments,
// then the environment's entries, each NUL-terminated, up to an empty string or the end.
bool environment_value(int pid, const char* name, char* out, std::size_t capacity) {
    char buffer[64 * 1024];
    std::size_t size = sizeof buffer;
    int query[3] = {CTL_KERN, KERN_PROCARGS2, pid};
    if (::sysctl(query, 3, buffer, &size, nullptr, 0) != 0 || size < sizeof(int)) return false;
    int argc = 0;
    std::memcpy(&argc, buffer, sizeof argc);
    std::size_t at = sizeof argc;
    while (at < size && buffer[at] != '\0') ++at;  // the executable's path
    while (at < size && buffer[at] == '\0') ++at;  // its padding
    for (int skipped = 0; skipped < argc && at < size; ++skipped) {
        while (at < size && buffer[at] != '\0') ++at;
        ++at;
    }
    const std::size_t name_length = std::strlen(name);
    while (at < size && buffer[at] != '\0') {
        const char* entry = buffer + at;
        const std::size_t length = ::strnlen(entry, size - at);
        if (length > name_length && std::memcmp(entry, name, name_length) == 0 &&
            entry[name_length] == '=') {
            const std::size_t value = length - name_length - 1;
            if (value + 1 > capacity) return false;
            std::memcpy(out, entry + name_length + 1, value);
            out[value] = '\0';
            return true;
        }
        at += length + 1;
    }
    return false;
}

std::uint64_t resident_bytes(int pid) {
    proc_taskinfo info{};
    const int got = ::proc_pidinfo(pid, PROC_PIDTASKINFO, 0, &info, sizeof info);
    return got == static_cast<int>(sizeof info) ? info.pti_resident_size : 0;
}

bool user_task_count_has_threads() {
    return false;
}

long user_task_count(unsigned uid) {
    // Darwin's RLIMIT_NPROC counts processes (not threads) by real uid, ours included.
    int pids[16384];
    const int bytes = ::proc_listpids(PROC_RUID_ONLY, uid, pids, static_cast<int>(sizeof pids));
    return bytes < 0 ? -1 : bytes / static_cast<long>(sizeof(int));
}

}  // namespace ipybox::process::detail
