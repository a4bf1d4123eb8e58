#pragma once
// What the sandbox tests share (test_kernel_sandbox.cpp, test_sandbox_forked.cpp): options for a
// kernel under the real srt (tests/node), and cell code that tries a read or a write.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "ipybox/code_executor.hpp"

namespace ipybox::testing {

// tests/node's srt.
std::filesystem::path srt_executable();
// A kernel_sandbox of these srt settings (null: none but ipybox's own) and this srt.
kernel_sandbox sandbox_of(nlohmann::json settings, std::filesystem::path srt);
// tool_executor_options("sandbox-<name>") under srt with `settings`.
code_executor_options sandboxed(const std::string& name, nlohmann::json settings = nullptr);
// Cell code that writes `target` and prints "written", or "denied <error>".
std::string write_code(const std::filesystem::path& target);
// Cell code that prints the text of `target`, or "denied <error>".
std::string read_code(const std::filesystem::path& target);

}  // namespace ipybox::testing
