#pragma once
// Logging for every module: named spdlog loggers that all write to one stderr sink.
//
// stdout belongs to protocols (`ipybox mcp`), so nothing here ever writes to it. Every line is
// screened before any sink sees it: values filled from ${VAR} placeholders are replaced by
// `${VAR}` (redactor.hpp) and control characters and invisible characters are shown escaped,
// line breaks and tabs kept (untrusted_text.hpp). Thread-safe.
#include <spdlog/spdlog.h>

#include <memory>
#include <string>
#include <string_view>

namespace ipybox::core {

// The logger named `ipybox.<name>`, created on first use with the current level.
std::shared_ptr<spdlog::logger> logger(std::string_view name);

// Sets the level of every ipybox logger, existing and future. Accepts spdlog names
// (trace, debug, info, warn/warning, error, critical, off), case-insensitive.
// Throws std::invalid_argument for anything else.
void set_log_level(std::string_view level);

// Replaces the shared sink (tests use a recording sink), behind the screening. Existing loggers
// switch too.
void set_log_sink(std::shared_ptr<spdlog::sinks::sink> sink);

}  // namespace ipybox::core
