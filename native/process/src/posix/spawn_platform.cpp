#include "../spawn_platform.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

namespace ipybox::process::detail {
bool open_pipe(int ends[2]) {
    if (::pipe(ends) != 0) return false;
    if (::fcntl(ends[0], F_SETFD, FD_CLOEXEC) == 0 && ::fcntl(ends[1], F_SETFD, FD_CLOEXEC) == 0) {
        return true;
    }
    ::close(ends[0]);
    ::close(ends[1]);
    return false;
}

// address_space_bytes is left out: see spawn_platform.hpp.
bool apply_limits(const process_rlimits& limits) {
    return set_limit(RLIMIT_FSIZE, limits.file_size_bytes) &&
           set_limit(RLIMIT_NOFILE, limits.open_files) &&
           set_limit(RLIMIT_NPROC, limits.processes) && set_limit(RLIMIT_CPU, limits.cpu_seconds);
}

}  // namespace ipybox::process::detail
