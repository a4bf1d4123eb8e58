#include "server_flags.hpp"

#include <optional>

#include "ipybox/core/json_decode.hpp"
#include "ipybox/workspace/bounded_read.hpp"

namespace ipybox::cli {

void add_server_flags(CLI::App& command, server_flags& flags) {
    command
        .add_option("--server", flags.servers,
                    "MCP server the code may call: NAME=JSON or NAME=@file.json, where JSON is "
                    "{\"command\",\"args\",\"env\"} or {\"url\",\"headers\"} (repeatable)")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->allow_extra_args(false);
    command
        .add_option("--mcp-config", flags.config_files,
                    "JSON file with {\"mcpServers\": {NAME: PARAMS}} (repeatable)")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->allow_extra_args(false);
}

nlohmann::json parse_json_argument(const std::string& flag, const std::string& text) {
    std::string content = text;
    if (!text.empty() && text[0] == '@') {
        // A file the user named (a link of theirs is followed), yet possibly in a workspace
        // that kernel code writes: regular files only, up to a size (bounded_read.hpp).
        const std::string path = text.substr(1);
        std::optional<std::string> read;
        try {
            read = workspace::read_regular_file(path, workspace::max_settings_file_bytes,
                                                workspace::link_rule::follow);
        } catch (const std::exception& e) {
            throw CLI::ValidationError(flag, e.what());
        }
        if (!read) throw CLI::ValidationError(flag, "cannot read " + path + ": it does not exist");
        content = std::move(*read);
    }
    try {
        return core::decode_json(content);
    } catch (const core::json_decode_error& e) {
        throw CLI::ValidationError(flag, std::string("not valid JSON: ") + e.what());
    }
}

std::map<std::string, nlohmann::json> collect_servers(const server_flags& flags) {
    std::map<std::string, nlohmann::json> servers;
    for (const auto& file : flags.config_files) {
        const auto config = parse_json_argument("--mcp-config", "@" + file);
        if (!config.is_object() || !config.contains("mcpServers") ||
            !config["mcpServers"].is_object()) {
            throw CLI::ValidationError("--mcp-config", file + " has no \"mcpServers\" object");
        }
        for (const auto& [name, params] : config["mcpServers"].items()) servers[name] = params;
    }
    for (const auto& entry : flags.servers) {
        const auto eq = entry.find('=');
        if (eq == std::string::npos || eq == 0) {
            throw CLI::ValidationError("--server",
                                       "expected NAME=JSON or NAME=@file, got '" + entry + "'");
        }
        servers[entry.substr(0, eq)] = parse_json_argument("--server", entry.substr(eq + 1));
    }
    return servers;
}

}  // namespace ipybox::cli
