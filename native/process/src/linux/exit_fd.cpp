#include "ipybox/process/exit_fd.hpp"

#include <sys/syscall.h>
#include <unistd.h>

namespace ipybox::process {

unique_fd open_exit_fd(int pid) {
    return unique_fd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
}

}  // namespace ipybox::process
