#include "cmd_generate.hpp"

#include <iostream>

#include "ipybox/mcp_sources.hpp"
#include "server_flags.hpp"

namespace ipybox::cli {

void setup_generate(CLI::App& app, generate_command_options& options) {
    auto* generate = app.add_subcommand(
        "generate", "Write the typed Python API (mcptools/<server>/) of an MCP server's tools");
    generate->add_option("--server-name", options.server_name, "Package name: a Python identifier")
        ->required();
    generate
        ->add_option("--server-params", options.server_params,
                     "JSON or @file: {\"command\",\"args\",\"env\"} or {\"url\",\"headers\"}; "
                     "${VAR} placeholders are filled from the environment and ./.env")
        ->required();
    generate->add_option("--root-dir", options.root_dir, "Where the package goes")
        ->capture_default_str();
    generate->add_option("--log-level", options.log_level, "Log level on stderr")
        ->capture_default_str();
}

int run_generate(const generate_command_options& options,
                 const process::environment_map& environment) {
    const auto params = parse_json_argument("--server-params", options.server_params);
    generate_options generation;
    generation.variables = host_variables(environment, std::filesystem::current_path() / ".env");
    generation.host_environment = environment;
    try {
        for (const auto& module :
             generate_mcp_sources(options.server_name, params, options.root_dir, generation)) {
            std::cout << module << "\n";
        }
    } catch (const std::invalid_argument& e) {
        std::cerr << "ipybox generate: " << e.what() << "\n";
        return exit_usage;
    } catch (const std::exception& e) {
        std::cerr << "ipybox generate: cannot generate '" << options.server_name
                  << "': " << e.what() << "\n";
        return exit_execution_error;
    }
    return exit_ok;
}

}  // namespace ipybox::cli
