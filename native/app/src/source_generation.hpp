#pragma once
// Generation from an already registered server in a client pool (shared by the executor, the
// MCP server and the free function generate_mcp_sources).
#include <filesystem>
#include <string>
#include <vector>

#include "mcp_client_pool.hpp"

namespace ipybox::app {

// Writes <trusted_root>/<package_root>/<server_name>/ through a descriptor of `trusted_root`,
// never following a link below it (workspace/directory.hpp).
std::vector<std::string> generate_from_pool(mcp_client_pool& pool, const std::string& server_name,
                                            const std::filesystem::path& trusted_root,
                                            const std::filesystem::path& package_root);

}  // namespace ipybox::app
