#pragma once
// Where the running program's own executable is (issue 39's platform layer): its absolute path
// with every link resolved, as the system records it for the process (Linux: /proc/self/exe;
// macOS: _NSGetExecutablePath, then realpath(3)). Used to find files installed beside ipybox and
// the virtual environment it was installed into.
// Thread-safe. Never throws: nullopt when the system cannot say (no /proc mounted, or a path
// too long).
#include <filesystem>
#include <optional>

namespace ipybox::core {

std::optional<std::filesystem::path> own_executable();

}  // namespace ipybox::core
