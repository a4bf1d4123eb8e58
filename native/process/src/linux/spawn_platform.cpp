#include "../spawn_platform.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

namespace ipybox::process::detail {
bool open_pipe(int ends[2]) {
    return ::pipe2(ends, O_CLOEXEC) == 0;
}

bool apply_limits(const process_rlimits& limits) {
    return set_limit(RLIMIT_AS, limits.address_space_bytes) &&
           set_limit(RLIMIT_FSIZE, limits.file_size_bytes) &&
           set_limit(RLIMIT_NOFILE, limits.open_files) &&
           set_limit(RLIMIT_NPROC, limits.processes) && set_limit(RLIMIT_CPU, limits.cpu_seconds);
}

}  // namespace ipybox::process::detail
