#pragma once
// MCP server configuration on the command line: --server NAME=JSON|@FILE (repeatable) and
// --mcp-config FILE with {"mcpServers": {NAME: PARAMS, ...}} (the format Claude Code uses).
#include <CLI/CLI.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ipybox::cli {

struct server_flags {
    std::vector<std::string> servers;
    std::vector<std::string> config_files;
};

void add_server_flags(CLI::App& command, server_flags& flags);

// JSON text, or the content of the file after '@'. Throws CLI::ValidationError naming the flag.
nlohmann::json parse_json_argument(const std::string& flag, const std::string& text);

// Every configured server by name; later definitions replace earlier ones.
std::map<std::string, nlohmann::json> collect_servers(const server_flags& flags);

}  // namespace ipybox::cli
