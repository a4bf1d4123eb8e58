#include "ipybox/core/own_executable.hpp"

#include <mach-o/dyld.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace ipybox::core {

std::optional<std::filesystem::path> own_executable() {
    // The path exec(2) was given (links kept, possibly relative); realpath resolves it as
    // Linux's /proc/self/exe already is, so a Homebrew link in bin/ leads to the Cellar's copy.
    std::uint32_t size = 0;
    _NSGetExecutablePath(nullptr, &size);
    std::string given(size, '\0');
    if (size == 0 || _NSGetExecutablePath(given.data(), &size) != 0) return std::nullopt;
    char resolved[PATH_MAX];
    if (::realpath(given.c_str(), resolved) == nullptr) return std::nullopt;
    return std::filesystem::path(resolved);
}

}  // namespace ipybox::core
