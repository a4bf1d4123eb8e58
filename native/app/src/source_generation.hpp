#pragma once
// Generation from an already registered server in a client pool (shared by the executor, the
// MCP server and the free function generate_mcp_sources).
#include <filesystem>
#include <string>
#include <vector>

#include "mcp_client_pool.hpp"

namespace ipybox::app {

std::vector<std::string> generate_from_pool(mcp_client_pool& pool, const std::string& server_name,
                                            const std::filesystem::path& root_dir);

}  // namespace ipybox::app
