#pragma once
// The parts of `ipybox doctor` that differ by platform (issue 39's platform layer). Each prints
// its rows (print_row) in the section cmd_doctor.cpp has opened and adds to `notes` what is
// missing or weaker than the best.
//   linux/   the programs srt runs (bwrap, socat, rg); cgroups and which mechanism contains a
//            kernel's process tree, and why not a better one; Debian's packages for Python
//   darwin/  sandbox-exec (srt's Seatbelt profile) and rg; rlimits and a process group per tree,
//            memory held by a watchdog on the resident size (macOS has no cgroups and does not
//            enforce RLIMIT_AS); which Python is the kernel's (Homebrew's, a virtual
//            environment's, ...) and pip in a virtual environment for its packages
// The portable build reports as Linux does: it runs there.
#include <filesystem>
#include <string>
#include <vector>

#include "ipybox/process/environment.hpp"

namespace ipybox::cli {

// One aligned "  what  value" line on stdout (cmd_doctor.cpp).
void print_row(const std::string& what, const std::string& value);

// The programs the sandbox needs besides srt, found on `environment`'s PATH.
void report_sandbox_programs(const process::environment_map& environment,
                             std::vector<std::string>& notes);

// The containment section's rows; `defaults` describes the default limits.
void report_containment_mechanism(const std::string& defaults, std::vector<std::string>& notes);

// Where the kernel's interpreter comes from, for a row of its own ("" where not worth a row).
std::string interpreter_origin(const std::filesystem::path& interpreter);

// How to install the Python package `package` for `interpreter` (a command or a short recipe).
std::string python_package_hint(const std::string& package,
                                const std::filesystem::path& interpreter);

}  // namespace ipybox::cli
