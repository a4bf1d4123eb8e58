#pragma once
// The command line a kernel starts with, and the file that carries its environment through a
// sandbox wrapper (kernel_wrapping::wrapper_environment). Private to the kernel module.
#include <filesystem>
#include <string>
#include <vector>

#include "ipybox/kernel/kernel_instance.hpp"
#include "ipybox/process/child_process.hpp"
#include "ipybox/process/environment.hpp"

namespace ipybox::kernel::detail {

// How the kernel of `launch` is spawned, inside `wrapping` when it has a command prefix: its
// command line, environment (the runtime first on PYTHONPATH, IPYBOX_WORKSPACE, the lifeline)
// and working directory; with a wrapper_environment, the kernel's variables go into
// `kernel_directory`/kernel.env and the wrapper runs `/bin/sh -c '. file && exec kernel'`.
// Containment and output handling are the caller's. Throws what write_environment_file throws.
process::spawn_options kernel_spawn_options(const kernel_launch& launch,
                                            const kernel_wrapping& wrapping,
                                            const std::filesystem::path& kernel_directory,
                                            const std::filesystem::path& connection_file);

// The same for another program run like a kernel (the kernel template): `program` replaces
// kernel_command's.
process::spawn_options program_spawn_options(const kernel_launch& launch,
                                             const kernel_wrapping& wrapping,
                                             const std::filesystem::path& kernel_directory,
                                             std::vector<std::string> program);

// {python, "-c", <bootstrap>, <padding>}: the kernel template (ipybox_runtime.kernel_template),
// its bootstrap the kernel's but for the module it runs; the padding leaves room in the
// process's argument area for each child's command line.
std::vector<std::string> template_command(const std::filesystem::path& python);

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
