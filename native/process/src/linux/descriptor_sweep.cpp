#include "ipybox/process/detail/descriptor_sweep.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../descriptor_action.hpp"

namespace ipybox::process::detail {
namespace {

// The kernel's default ceiling for RLIMIT_NOFILE (fs.nr_open), for a hard limit of "unlimited".
constexpr rlim_t default_descriptor_ceiling = 1 << 20;

// A name of /proc/self/fd as a number, or -1 ("." and "..").
int descriptor_number(const char* name) {
    int number = 0;
    if (*name == '\0') return -1;
    for (; *name != '\0'; ++name) {
        if (*name < '0' || *name > '9' || number > (1 << 27)) return -1;
        number = number * 10 + (*name - '0');
    }
    return number;
}

// False if /proc/self/fd could not be read to its end. The kernel lists descriptors by number
// from where the last read stopped, so closing the ones already listed disturbs nothing.
bool sweep_listed(int first, sweep_action action) {
    const int directory = ::open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (directory < 0) return false;
    alignas(dirent64) char buffer[4096];
    long got = 0;
    while ((got = ::syscall(SYS_getdents64, directory, buffer, sizeof buffer)) > 0) {
        for (long offset = 0; offset < got;) {
            const auto* entry = reinterpret_cast<const dirent64*>(buffer + offset);
            offset += entry->d_reclen;
            const int fd = descriptor_number(entry->d_name);
            if (fd >= first && fd != directory) act_on(fd, action);
        }
    }
    ::close(directory);
    return got == 0;
}

void sweep_numbered(int first, sweep_action action) {
    rlimit limit{};
    rlim_t last = default_descriptor_ceiling;
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_max != RLIM_INFINITY) {
        last = limit.rlim_max;
    }
    for (rlim_t fd = static_cast<rlim_t>(first); fd < last; ++fd) {
        act_on(static_cast<int>(fd), action);
    }
}

}  // namespace

void sweep_descriptors_from(int first, sweep_action action, bool use_fast_path) {
    const unsigned flags = action == sweep_action::close ? 0U : CLOSE_RANGE_CLOEXEC;
    if (use_fast_path && ::syscall(SYS_close_range, first, ~0U, flags) == 0) return;
    // Kernels before 5.11 (5.9 to close), or close_range refused.
    if (!sweep_listed(first, action)) sweep_numbered(first, action);
}

}  // namespace ipybox::process::detail
