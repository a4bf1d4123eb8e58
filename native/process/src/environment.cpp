#include "ipybox/process/environment.hpp"

#include <algorithm>

extern char** environ;  // NOLINT: POSIX

namespace ipybox::process {

const std::vector<std::string>& default_allowlist() {
    static const std::vector<std::string> names = {"PATH",  "HOME",   "USER",   "LOGNAME",
                                                   "SHELL", "LANG",   "LC_ALL", "LC_CTYPE",
                                                   "TZ",    "TMPDIR", "TERM"};
    return names;
}

environment_map filter_environment(const environment_map& parent,
                                   const std::vector<std::string>& allowlist) {
    environment_map out;
    for (const auto& name : allowlist) {
        const auto it = parent.find(name);
        if (it == parent.end()) continue;
        if (it->second.rfind("() {", 0) == 0) continue;
        out.emplace(name, it->second);
    }
    return out;
}

environment_map current_environment() {
    environment_map out;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
        const std::string text(*entry);
        const auto eq = text.find('=');
        if (eq == std::string::npos || eq == 0) continue;
        out.emplace(text.substr(0, eq), text.substr(eq + 1));
    }
    return out;
}

}  // namespace ipybox::process
