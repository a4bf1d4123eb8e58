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

bool lies_within(const std::filesystem::path& path,
                 const std::vector<std::filesystem::path>& roots) {
    std::error_code ignored;
    const auto real = std::filesystem::weakly_canonical(std::filesystem::absolute(path), ignored);
    for (const auto& root : roots) {
        for (const auto& form :
             {root.lexically_normal(), std::filesystem::weakly_canonical(root, ignored)}) {
            const auto inside = real.lexically_relative(form);
            if (!form.empty() && !inside.empty() && *inside.begin() != "..") return true;
        }
    }
    return false;
}

std::string path_outside(const std::string& path_variable,
                         const std::vector<std::filesystem::path>& untrusted_roots) {
    std::string kept;
    std::size_t start = 0;
    while (start <= path_variable.size()) {
        auto end = path_variable.find(':', start);
        if (end == std::string::npos) end = path_variable.size();
        const std::string dir = path_variable.substr(start, end - start);
        start = end + 1;
        if (dir.empty() || dir.front() != '/' || lies_within(dir, untrusted_roots)) continue;
        kept += (kept.empty() ? "" : ":") + dir;
    }
    return kept;
}

}  // namespace ipybox::process
