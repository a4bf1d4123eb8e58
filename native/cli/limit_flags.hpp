#pragma once
// The resource-limit flags of `run` and `mcp`: --memory-limit, --max-processes, --max-file-size,
// --max-open-files, --cpu-time-limit, --no-limits. A flag not given falls back to its variable
// (IPYBOX_MEMORY_LIMIT, IPYBOX_MAX_PROCESSES, IPYBOX_MAX_FILE_SIZE, IPYBOX_MAX_OPEN_FILES,
// IPYBOX_CPU_TIME_LIMIT; IPYBOX_NO_LIMITS=1), which is how the Claude Code plugins are tuned
// (settings.json "env"). Defaults: process::default_resource_limits().
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "ipybox/process/containment.hpp"
#include "ipybox/process/environment.hpp"

namespace ipybox::cli {

struct limit_flags {
    std::optional<std::string> memory;     // "2G", "512M", "none"
    std::optional<std::string> processes;  // "256", "none"
    std::optional<std::string> file_size;  // "1G", "none"
    std::optional<std::string> open_files;
    std::optional<std::string> cpu_seconds;
    bool no_limits = false;
};

void add_limit_flags(CLI::App& command, limit_flags& flags);
// Throws CLI::ValidationError naming the flag (or variable) for a malformed value.
process::resource_limits limits_from_flags(limit_flags flags,
                                           const process::environment_map& environment);

}  // namespace ipybox::cli
