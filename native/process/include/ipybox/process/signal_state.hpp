#pragma once
// Whether another process of the same user has signalled a process: it is stopped, it has
// exited, or a signal that would act on it is pending (one whose default action stops or ends
// it, or that it handles: SIGINT would interrupt the first code it runs). Signals that do
// nothing by default (SIGCHLD, SIGCONT, SIGURG, SIGWINCH) do not count. Reads /proc on Linux
// (src/linux/signal_state.cpp; the portable build's too) and sysctl(KERN_PROC_PID) on Darwin
// (src/darwin/signal_state.cpp); a process that cannot be read counts as gone.
//
// Used where ipybox hands over a process another could have reached (a spare kernel, the kernel
// template, which sandboxed kernels share a PID namespace with): a process that was signalled
// is not used.
#include <string>

namespace ipybox::process {

// "" when `pid` runs and nothing is pending for it; else why not ("it was stopped by a signal",
// "it has exited", "a signal is pending for it (mask 0x...)").
std::string signal_trouble(int pid);

}  // namespace ipybox::process
