#pragma once
// A signal's name without "SIG" ("KILL", "TERM"), or null for a number without one (private to
// the process module; issue 39's platform layer): glibc's sigabbrev_np on Linux, the BSD table
// sys_signame on Darwin.
namespace ipybox::process::detail {

const char* signal_abbreviation(int signal);

}  // namespace ipybox::process::detail
