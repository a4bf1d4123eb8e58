#pragma once
// Whether kernels can be forked from a kernel template on this platform (private to the kernel
// module; issue 39's platform layer, concern "kernel template"):
//
//   Linux     yes, with pidfds (Linux 5.3): a template's children are not ours, and only a pidfd
//             watches a process that is not our child without a PID race
//   Darwin    no: Apple's frameworks (the Objective-C runtime, Accelerate under numpy) are not
//             safe to use after fork, so kernels start cold (spares too)
//   portable  no, as on Darwin
#include <string>

namespace ipybox::kernel::detail {

// "" when kernels can be forked here; else why they start cold.
std::string platform_fork_obstacle();

}  // namespace ipybox::kernel::detail
