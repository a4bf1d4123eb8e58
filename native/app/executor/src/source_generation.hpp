#pragma once
// Generation from an already registered server in a client pool (shared by the executor, the
// MCP server and the free function generate_mcp_sources).
#include <filesystem>
#include <string>
#include <vector>

#include "mcp_client_pool.hpp"

namespace ipybox::app {

// Writes <trusted_root>/<package_root>/<server_name>/ through a descriptor of `trusted_root`,
// never following a link below it (workspace/directory.hpp). Returns the module names; when
// `loose_typing` is given, it receives "<module>: <note>" for each part of a schema that a
// module types more loosely than the schema says (codegen::tool_module::notes). `cancellation`
// abandons the server's start-up and listing.
std::vector<std::string> generate_from_pool(
    mcp_client_pool& pool, const std::string& server_name,
    const std::filesystem::path& trusted_root, const std::filesystem::path& package_root,
    std::vector<std::string>* loose_typing = nullptr,
    const mcp::jsonrpc::cancellation_token& cancellation = {});

}  // namespace ipybox::app
