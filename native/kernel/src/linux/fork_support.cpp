#include "../fork_support.hpp"

#include <sys/syscall.h>
#include <unistd.h>

namespace ipybox::kernel::detail {

std::string platform_fork_obstacle() {
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, ::getpid(), 0));
    if (pidfd < 0) return "this system has no pidfd_open (Linux 5.3 or later)";
    ::close(pidfd);
    return "";
}

}  // namespace ipybox::kernel::detail
