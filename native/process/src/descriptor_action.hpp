#pragma once
// One descriptor's part of a sweep (descriptor_sweep.hpp), shared by the Linux and POSIX
// implementations: close it, or mark it close-on-exec. Async-signal-safe.
#include <fcntl.h>
#include <unistd.h>

#include "ipybox/process/detail/descriptor_sweep.hpp"

namespace ipybox::process::detail {

inline void act_on(int fd, sweep_action action) {
    if (action == sweep_action::close) {
        ::close(fd);
        return;
    }
    const int flags = ::fcntl(fd, F_GETFD);
    if (flags >= 0 && (flags & FD_CLOEXEC) == 0) ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

}  // namespace ipybox::process::detail
