#pragma once
// `ipybox generate --server-name N --server-params JSON|@FILE --root-dir DIR`: writes the typed
// Python API of one MCP server and prints its module names, one per line. When the root dir is
// a workspace's mcptools/, saved actions (the workspace's gentools/ and the user library) that
// call a tool whose schema changed are named on stderr, as register_mcp_server does.
#include "host_context.hpp"

namespace ipybox::cli {

struct generate_command_options {
    std::string server_name;
    std::string server_params;
    std::string root_dir = "mcptools";
    std::string log_level = "warning";
};

void setup_generate(CLI::App& app, generate_command_options& options);
int run_generate(const generate_command_options& options,
                 const process::environment_map& environment);

}  // namespace ipybox::cli
