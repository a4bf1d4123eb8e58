#pragma once
// The exit status of an adopted process (child_process::adopt), which is not our child (private
// to the process module; issue 39's platform layer, concern "process spawning and exit"):
//
//   Linux     once its pidfd is readable: field 52 of /proc/<pid>/stat (exit_code, in waitpid's
//             form) while it is a zombie, trusted only if the pidfd still reaches it afterwards
//             (a signal to a reaped process fails), so that it was not read from another process
//             that got its pid (linux/adopted_status.cpp)
//   Darwin    none: only Linux forks kernels, and so adopts processes; an exit is reported
//             with an unknown status (posix/adopted_status.cpp)
//   portable  as on Darwin
#include <optional>

#include "ipybox/process/exit_status.hpp"

namespace ipybox::process::detail {

// nullopt while `pid` runs; its status once it has exited (an unknown one when it cannot be
// read). `exit_fd` is its exit descriptor.
std::optional<exit_status> adopted_exit_status(int pid, int exit_fd);

}  // namespace ipybox::process::detail
