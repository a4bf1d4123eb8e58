#pragma once
// Typed Python APIs for MCP servers: connects to a server, reads its tools, and writes
// <root_dir>/<server_name>/ with one module per tool (Params, Result where the tool has an
// output schema, run()). The counterpart of the reference's generate_mcp_sources.
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ipybox {

struct generate_options {
    // Fills ${VAR} placeholders in the parameters while connecting (the written files keep the
    // placeholders). Without it, any placeholder is an error naming the variable.
    std::function<std::optional<std::string>(std::string_view)> variables;
    std::filesystem::path working_directory;  // of a stdio server without "cwd"; default: cwd
    // The host's environment: a stdio server inherits its allowlisted variables (PATH, HOME,
    // LANG, ...) under its own "env". nullopt: this process's own environment.
    std::optional<std::map<std::string, std::string>> host_environment;
    std::chrono::milliseconds connect_timeout{30000};
};

// ${VAR} lookup over the host's variables: ${IPYBOX_WORKSPACE} is the folder of `dotenv_file`
// (the workspace: workspace/placeholders.hpp); then `environment`, then the KEY=VALUE lines of
// `dotenv_file` (read at each lookup, so edits apply; a missing file is empty).
std::function<std::optional<std::string>(std::string_view)> host_variables(
    std::map<std::string, std::string> environment, std::filesystem::path dotenv_file);

// Returns the module names, in the server's tool order. `server_name` must be a Python
// identifier (checked before connecting); nothing outside <root_dir>/<server_name>/ is written
// or removed. Throws std::invalid_argument for a bad name or parameters and std::runtime_error
// (with the server's reason) when it cannot be reached.
std::vector<std::string> generate_mcp_sources(const std::string& server_name,
                                              const nlohmann::json& server_params,
                                              const std::filesystem::path& root_dir,
                                              const generate_options& options = {});

}  // namespace ipybox
