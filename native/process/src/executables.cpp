#include "ipybox/process/executables.hpp"

#include <unistd.h>

namespace ipybox::process {

std::optional<std::filesystem::path> find_executable(const std::string& command,
                                                     const std::string& path_variable) {
    if (command.empty()) return std::nullopt;
    const auto runnable = [](const std::filesystem::path& candidate) {
        std::error_code ignored;
        return std::filesystem::is_regular_file(candidate, ignored) &&
               ::access(candidate.c_str(), X_OK) == 0;
    };
    if (command.find('/') != std::string::npos) {
        return runnable(command) ? std::optional<std::filesystem::path>(command) : std::nullopt;
    }
    std::size_t start = 0;
    while (start <= path_variable.size()) {
        auto end = path_variable.find(':', start);
        if (end == std::string::npos) end = path_variable.size();
        const std::string dir = path_variable.substr(start, end - start);
        const auto candidate = std::filesystem::path(dir.empty() ? "." : dir) / command;
        if (runnable(candidate)) return candidate;
        start = end + 1;
    }
    return std::nullopt;
}

}  // namespace ipybox::process
