#pragma once
// Builds a code_executor against the real Debian ipykernel, in a fresh workspace.
#include <filesystem>
#include <functional>
#include <string>

#include "ipybox/code_executor.hpp"

namespace ipybox::testing {

// Options for a test executor: fresh workspace, this source tree's runtime package, the test
// process's environment as the host's, no spare kernel unless asked.
code_executor_options executor_options_for(const std::string& name);

// Runs `code` and returns the error it raises; fails the test if it raises none.
code_execution_error expect_error(code_executor& executor, const std::string& code,
                                  std::optional<std::chrono::milliseconds> timeout = std::nullopt);

// Cell code that ignores interrupts (catches KeyboardInterrupt and sleeps on): only a restart
// ends it.
extern const char* const ignores_interrupts;

// Starts, from kernel code, a grandchild in its own session that ignores SIGTERM; returns its
// pid (as the host sees it), or 0 if it did not say it within 5 s.
int start_escaping_child(code_executor& executor, const std::filesystem::path& pid_file);

// Writes an executable shell script and returns its path.
std::filesystem::path write_script(const std::filesystem::path& dir, const std::string& name,
                                   const std::string& body);

}  // namespace ipybox::testing
