#pragma once
// Learning that a process exited through a descriptor (issue 39's platform layer, concern
// "process spawning and exit"): open_exit_fd(pid) gives one that becomes readable once the
// process has exited, for Asio (or poll) to watch; it names that process and no later one with
// the same PID.
//
//   Linux     a pidfd (pidfd_open, Linux 5.3; invalid before)
//   Darwin    a kqueue watching the process's exit (EVFILT_PROC, NOTE_EXIT); for a process that
//             has already exited, the read end of a closed pipe (readable at once)
//   portable  none: exits are learned by waiting, as on Linux before 5.3
//
// An invalid descriptor means: learn the exit by waitpid (child_process does) or not at all.
#include "ipybox/process/unique_fd.hpp"

namespace ipybox::process {

unique_fd open_exit_fd(int pid);

}  // namespace ipybox::process
