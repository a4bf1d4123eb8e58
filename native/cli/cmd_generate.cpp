#include "cmd_generate.hpp"

#include <iostream>

#include "ipybox/gentools_pins.hpp"
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
    // Saved actions import mcptools.<server>.<tool> from the folder holding the root dir: that
    // folder is the workspace whose pins say which tool versions its actions were written for.
    const auto root =
        std::filesystem::weakly_canonical(std::filesystem::absolute(options.root_dir));
    const auto workspace = root.parent_path();
    std::map<std::string, std::string> previous;
    try {
        previous = tool_versions(root, options.server_name);
    } catch (const std::exception&) {
        // a bad server name is reported by generate_mcp_sources below
    }
    try {
        for (const auto& module :
             generate_mcp_sources(options.server_name, params, options.root_dir, generation)) {
            std::cout << module << "\n";
        }
    } catch (const std::invalid_argument& e) {
        std::cerr << "ipybox generate: " << screened(e.what()) << "\n";
        return exit_usage;
    } catch (const std::exception& e) {
        std::cerr << "ipybox generate: cannot generate '" << options.server_name
                  << "': " << screened(e.what()) << "\n";
        return exit_execution_error;
    }
    if (root.filename() == "mcptools") {
        try {
            const auto flags = repin_saved_actions(workspace, library_roots({}, environment),
                                                   registry_file(environment, workspace), previous);
            if (!flags.empty()) {
                // On stderr: stdout lists the generated modules, one per line, for scripts.
                std::cerr << "ipybox generate: saved code actions call MCP tools whose schema "
                             "changed since they were saved:\n"
                          << screened(describe_changed_actions(flags))
                          << "Read the tools' new interfaces, update these actions and check "
                             "them (ipybox gentools check).\n";
            }
        } catch (const std::exception& e) {
            std::cerr << "ipybox generate: cannot check the saved code actions: "
                      << screened(e.what()) << "\n";
        }
    }
    return exit_ok;
}

}  // namespace ipybox::cli
