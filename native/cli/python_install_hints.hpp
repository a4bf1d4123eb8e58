#pragma once
// What `ipybox doctor` tells a user to install when no Python interpreter has ipykernel: the
// command for each system the release supports, the one this machine runs marked, and how to
// make a virtual environment from a plain python3. All pure but python_install_hints_here.
#include <string>
#include <vector>

namespace ipybox::cli {

enum class host_system { debian, fedora, macos, other };

// The system family, from the text of /etc/os-release (ID and ID_LIKE); `is_macos` wins.
host_system detect_host_system(const std::string& os_release, bool is_macos);

// One line per way to get an interpreter with ipykernel, Pydantic and matplotlib. `plain_python`
// is an interpreter that runs but lacks ipykernel (empty if none ran): the virtual environment
// is made from it, at `venv_dir` (which may start with ~).
std::vector<std::string> python_install_hints(host_system system, const std::string& plain_python,
                                              const std::string& venv_dir);

// python_install_hints for this machine (/etc/os-release, or macOS), the virtual environment at
// ~/.local/share/ipybox/venv.
std::vector<std::string> python_install_hints_here(const std::string& plain_python);

}  // namespace ipybox::cli
