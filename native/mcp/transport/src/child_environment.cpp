#include <unistd.h>

#include <system_error>

#include "ipybox/mcp/transport/stdio_client_transport.hpp"

extern char** environ;  // NOLINT: POSIX global

namespace ipybox::mcp::transport {

const std::vector<std::string>& inherited_variables() {
    static const std::vector<std::string> names = {"HOME", "LOGNAME", "PATH",   "SHELL", "TERM",
                                                   "USER", "LANG",    "LC_ALL", "TMPDIR"};
    return names;
}

environment_map child_environment(const environment_map& parent, const environment_map& extra) {
    environment_map result;
    for (const auto& name : inherited_variables()) {
        const auto found = parent.find(name);
        // "() {" marks an exported bash function: code, not configuration.
        if (found != parent.end() && found->second.rfind("()", 0) != 0) {
            result.emplace(name, found->second);
        }
    }
    for (const auto& [name, value] : extra) result[name] = value;
    return result;
}

environment_map current_environment() {
    environment_map result;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
        const std::string_view text(*entry);
        const auto equals = text.find('=');
        if (equals == std::string_view::npos || equals == 0) continue;
        result.emplace(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
    }
    return result;
}

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

}  // namespace ipybox::mcp::transport
