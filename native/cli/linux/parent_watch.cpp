#include "../parent_watch.hpp"

#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>

namespace ipybox::cli {

bool end_with_parent(int parent_pid) {
    // Cannot fail for SIGTERM. Checked after arming: a parent that ended before shows as a
    // changed parent, and the signal is disarmed again.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() == parent_pid) return true;
    ::prctl(PR_SET_PDEATHSIG, 0);
    return false;
}

}  // namespace ipybox::cli
