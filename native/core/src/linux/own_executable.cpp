#include "ipybox/core/own_executable.hpp"

#include <system_error>

namespace ipybox::core {

std::optional<std::filesystem::path> own_executable() {
    // The kernel keeps the link resolved: what exec(2) opened, not the name it was given.
    std::error_code error;
    auto self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (error || self.empty()) return std::nullopt;
    return self;
}

}  // namespace ipybox::core
