#include "limit_flags.hpp"

namespace ipybox::cli {
namespace {

using size_parser = std::uint64_t (*)(const std::string&);

std::uint64_t parse_count(const std::string& text) {
    std::size_t end = 0;
    unsigned long long value = 0;
    try {
        value = std::stoull(text, &end);
    } catch (const std::exception&) {
        end = 0;
    }
    if (end != text.size() || value == 0 || text.front() == '-') {
        throw std::invalid_argument("'" + text + "' is not a positive whole number");
    }
    return value;
}

void apply(const char* flag, const std::optional<std::string>& text,
           std::optional<std::uint64_t>& field, size_parser parse) {
    if (!text) return;
    if (*text == "none" || *text == "unlimited") {
        field.reset();
        return;
    }
    try {
        field = parse(*text);
    } catch (const std::invalid_argument& e) {
        throw CLI::ValidationError(flag, e.what());
    }
}

}  // namespace

void add_limit_flags(CLI::App& command, limit_flags& flags) {
    const auto defaults = process::default_resource_limits();
    command.add_option("--memory-limit", flags.memory,
                       "Memory of the kernel and everything it starts, e.g. 2G or none (default " +
                           process::describe_bytes(*defaults.memory_bytes) + ")");
    command.add_option("--max-processes", flags.processes,
                       "Processes and threads of the kernel's tree, or none (default " +
                           std::to_string(*defaults.processes) + ")");
    command.add_option("--max-file-size", flags.file_size,
                       "Largest file the kernel may write, e.g. 1G or none (default " +
                           process::describe_bytes(*defaults.file_size_bytes) + ")");
    command.add_option("--max-open-files", flags.open_files,
                       "Open files per kernel process, or none (default " +
                           std::to_string(*defaults.open_files) + ")");
    command.add_option("--cpu-time-limit", flags.cpu_seconds,
                       "CPU seconds per kernel process, or none (default none)");
    command.add_flag("--no-limits", flags.no_limits,
                     "No resource limits (the kernel's processes still end with it)");
}

process::resource_limits limits_from_flags(limit_flags flags,
                                           const process::environment_map& environment) {
    const auto fallback = [&](std::optional<std::string>& field, const char* variable) {
        const auto it = environment.find(variable);
        if (!field && it != environment.end() && !it->second.empty()) field = it->second;
    };
    fallback(flags.memory, "IPYBOX_MEMORY_LIMIT");
    fallback(flags.processes, "IPYBOX_MAX_PROCESSES");
    fallback(flags.file_size, "IPYBOX_MAX_FILE_SIZE");
    fallback(flags.open_files, "IPYBOX_MAX_OPEN_FILES");
    fallback(flags.cpu_seconds, "IPYBOX_CPU_TIME_LIMIT");
    if (const auto it = environment.find("IPYBOX_NO_LIMITS");
        it != environment.end() && it->second == "1") {
        flags.no_limits = true;
    }
    auto limits = flags.no_limits ? process::resource_limits{} : process::default_resource_limits();
    apply("--memory-limit", flags.memory, limits.memory_bytes, &process::parse_bytes);
    apply("--max-processes", flags.processes, limits.processes, &parse_count);
    apply("--max-file-size", flags.file_size, limits.file_size_bytes, &process::parse_bytes);
    apply("--max-open-files", flags.open_files, limits.open_files, &parse_count);
    apply("--cpu-time-limit", flags.cpu_seconds, limits.cpu_seconds, &parse_count);
    return limits;
}

}  // namespace ipybox::cli
