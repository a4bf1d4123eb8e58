#include "python_install_hints.hpp"

#include <fstream>
#include <sstream>

namespace ipybox::cli {
namespace {

// The value of KEY=value or KEY="value" in os-release text.
std::string os_release_field(const std::string& text, const std::string& key) {
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.rfind(key + "=", 0) != 0) continue;
        auto value = line.substr(key.size() + 1);
        if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'')) {
            value = value.substr(1, value.size() - 2);
        }
        return value;
    }
    return {};
}

bool names(const std::string& ids, const std::string& wanted) {
    std::istringstream words(ids);
    std::string word;
    while (words >> word) {
        if (word == wanted) return true;
    }
    return false;
}

std::string marked(const std::string& line, bool this_system) {
    return this_system ? line + "   <- this system" : line;
}

}  // namespace

host_system detect_host_system(const std::string& os_release, bool is_macos) {
    if (is_macos) return host_system::macos;
    const auto ids =
        os_release_field(os_release, "ID") + " " + os_release_field(os_release, "ID_LIKE");
    if (names(ids, "debian") || names(ids, "ubuntu")) return host_system::debian;
    if (names(ids, "fedora") || names(ids, "rhel")) return host_system::fedora;
    return host_system::other;
}

std::vector<std::string> python_install_hints(host_system system, const std::string& plain_python,
                                              const std::string& venv_dir) {
    const std::string packages = "python3-ipykernel python3-pydantic python3-matplotlib";
    const std::string python = plain_python.empty() ? "python3" : plain_python;
    return {
        marked("Debian/Ubuntu: sudo apt-get install " + packages, system == host_system::debian),
        marked("Fedora: sudo dnf install " + packages, system == host_system::fedora),
        marked("macOS (Homebrew): brew install python, then the virtual environment below",
               system == host_system::macos),
        marked("with only a plain Python 3: " + python + " -m venv " + venv_dir + " && " +
                   venv_dir +
                   "/bin/python -m pip install ipykernel pydantic matplotlib, then "
                   "pass --python " +
                   venv_dir +
                   "/bin/python (or set IPYBOX_PYTHON to it); "
                   "Debian needs python3-venv for this",
               system == host_system::other),
    };
}

std::vector<std::string> python_install_hints_here(const std::string& plain_python) {
    std::ifstream file("/etc/os-release");
    std::ostringstream os_release;
    os_release << file.rdbuf();
#ifdef __APPLE__
    constexpr bool is_macos = true;
#else
    constexpr bool is_macos = false;
#endif
    return python_install_hints(detect_host_system(os_release.str(), is_macos), plain_python,
                                "~/.local/share/ipybox/venv");
}

}  // namespace ipybox::cli
