#include "ipybox/process/signal_state.hpp"

#include <sys/proc.h>
#include <sys/sysctl.h>

#include <cstdint>

#include "../pending_signals.hpp"

// Darwin: the process's state and its pending signals from sysctl(KERN_PROC_PID), which gives a
// process of the same user its kinfo_proc (p_stat, p_siglist).
namespace ipybox::process {

std::string signal_trouble(int pid) {
    kinfo_proc info{};
    std::size_t size = sizeof info;
    int query[4] = {CTL_KERN, KERN_PROC, KERN_PROC_PID, pid};
    if (::sysctl(query, 4, &info, &size, nullptr, 0) != 0 || size == 0) return "it has exited";
    const auto state = info.kp_proc.p_stat;
    if (state == SZOMB) return "it has exited";
    if (state == SSTOP) return "it was stopped by a signal";
    return detail::pending_signal_trouble(static_cast<std::uint64_t>(info.kp_proc.p_siglist));
}

}  // namespace ipybox::process
