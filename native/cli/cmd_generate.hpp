#pragma once
// `ipybox generate --server-name N --server-params JSON|@FILE --root-dir DIR`: writes the typed
// Python API of one MCP server and prints its module names, one per line.
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
