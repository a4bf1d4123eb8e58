#pragma once
// Server parameters (already free of ${VAR} placeholders) to a transport: stdio for
// {"command", "args", "env", "cwd"}, streamable HTTP or SSE for {"url", "type", "headers"}.
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ipybox/mcp/transport/transport.hpp"

namespace ipybox::app {

// Throws std::invalid_argument with an actionable message for parameters that name neither a
// command nor a URL, or whose fields have the wrong types.
// A stdio server inherits `inherited` (already allowlisted; nullopt: the allowlisted part of this
// process's environment) under its own "env"; `close_grace` bounds its orderly end (half of it
// after closing its stdin, half after SIGTERM; then SIGKILL).
std::shared_ptr<mcp::transport::transport> make_transport(
    boost::asio::io_context& io, const std::string& server_name, const nlohmann::json& params,
    const std::filesystem::path& default_cwd,
    const std::optional<std::map<std::string, std::string>>& inherited,
    std::chrono::milliseconds close_grace = std::chrono::seconds(4));

// Checks the shape of server parameters without connecting (same errors as make_transport),
// "timeouts" included (server_deadlines.hpp).
void validate_server_params(const nlohmann::json& params);

}  // namespace ipybox::app
