#pragma once
// Finding srt and wrapping a command with it.
//
//   auto srt = sandbox::find_srt(std::nullopt, host_environment);   // or throws
//   sandbox::write_settings(dir / "sandbox.json", settings);
//   launch.command_prefix = sandbox::command_prefix(srt, dir / "sandbox.json");
//
// srt exits with an error when bubblewrap (Linux) or its other dependencies are missing or its
// settings are invalid; the wrapped command then never runs. So a sandboxed kernel either runs
// sandboxed or does not start (fails closed).
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ipybox/process/environment.hpp"

namespace ipybox::sandbox {

// srt cannot be found or is not executable; what() says how to install it.
class sandbox_unavailable : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// `explicit_path` if given, else $IPYBOX_SRT (a path, or a name looked up on PATH), else `srt`
// on the environment's PATH, else the first executable of `fallbacks` (a copy installed with
// ipybox). Never one whose real path lies in `untrusted_roots` (the workspace, which the
// sandboxed kernel can write): PATH entries there are not searched, and a named srt or fallback
// there is refused. Throws sandbox_unavailable.
std::filesystem::path find_srt(const std::optional<std::filesystem::path>& explicit_path,
                               const process::environment_map& environment,
                               const std::vector<std::filesystem::path>& fallbacks = {},
                               const std::vector<std::filesystem::path>& untrusted_roots = {});

// Writes the settings file (mode 0600). Throws std::runtime_error.
void write_settings(const std::filesystem::path& file, const nlohmann::json& settings);

// {srt, "--settings", file, "--"}: the wrapped command follows as separate arguments (srt quotes
// each one for the shell it runs the command with).
std::vector<std::string> command_prefix(const std::filesystem::path& srt,
                                        const std::filesystem::path& settings_file);

// What to install, for error messages: "npm install -g @anthropic-ai/sandbox-runtime" and, on
// Linux, "apt-get install bubblewrap socat ripgrep".
std::string install_hint();

}  // namespace ipybox::sandbox
