#pragma once
// The system's table of processes, as containment reads it (private to the process module;
// issue 39's platform layer, concern "containment"). Async-signal-safe: system calls on stack
// buffers only, no allocation, so that the keeper can use it in a forked child of a
// multithreaded ipybox.
//
//   Linux     /proc: the numeric entries of /proc (getdents64), /proc/<pid>/environ, statm
//   Darwin    libproc (proc_listallpids, proc_pidinfo) and sysctl(KERN_PROCARGS2), which gives
//             the environment a process was started with, for processes of the same user
//   portable  Linux's: the portable build runs on Linux
//
// Both read the environment a process was started with (exec's), not later changes to it.
#include <cstddef>
#include <cstdint>

namespace ipybox::process::detail {

// Calls `visit(pid, context)` for every process the table lists now (not for our own).
using process_visitor = void (*)(int pid, void* context);
void for_each_process(process_visitor visit, void* context);

// Copies the value of `name` in the environment `pid` was started with into `out` (at most
// `capacity` - 1 bytes, NUL-terminated); false when it has no such entry or cannot be read.
bool environment_value(int pid, const char* name, char* out, std::size_t capacity);

// The resident memory of `pid` in bytes; 0 when it cannot be read (it is gone, or not ours).
std::uint64_t resident_bytes(int pid);

// What RLIMIT_NPROC counts against the real user `uid` now, our own process included: on Linux
// every thread of every process whose real uid it is (in child user namespaces too, as the
// kernel charges them), on Darwin every such process. -1 when the table cannot be read.
long user_task_count(unsigned uid);
// Whether that count (and so RLIMIT_NPROC) includes threads: Linux yes, Darwin no.
bool user_task_count_has_threads();

}  // namespace ipybox::process::detail
