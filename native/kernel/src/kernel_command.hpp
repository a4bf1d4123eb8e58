#pragma once
// The command line a kernel starts with, and the file that carries its environment through a
// sandbox wrapper (kernel_wrapping::wrapper_environment). Private to the kernel module.
#include <filesystem>
#include <string>
#include <vector>

#include "ipybox/process/environment.hpp"

namespace ipybox::kernel::detail {

// {python, "-c", <bootstrap>, "-f", connection_file}. The bootstrap removes the current
// directory ('' in sys.path: the workspace, which kernel code writes) before it imports
// anything, then runs ipybox_runtime.kernel_main: a workspace file named like a module the
// kernel's start imports (logging.py, json.py) is not imported in its place.
std::vector<std::string> kernel_command(const std::filesystem::path& python,
                                        const std::filesystem::path& connection_file);

// Writes `export NAME='value'` lines, one per variable, readable by the owner only. Throws
// std::invalid_argument naming a variable that a POSIX shell cannot set (its name is not
// [A-Za-z_][A-Za-z0-9_]*), std::runtime_error when the file cannot be written.
void write_environment_file(const std::filesystem::path& file,
                            const process::environment_map& environment);

// `value` quoted for a POSIX shell: in single quotes, each ' written as '\''.
std::string shell_quoted(const std::string& value);

}  // namespace ipybox::kernel::detail
