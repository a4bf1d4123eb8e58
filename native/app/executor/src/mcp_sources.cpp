#include "ipybox/mcp_sources.hpp"

#include "ipybox/codegen/generator.hpp"
#include "ipybox/codegen/naming.hpp"
#include "ipybox/core/log.hpp"
#include "ipybox/core/redactor.hpp"
#include "ipybox/executor/mcp_runtime.hpp"
#include "ipybox/gentools/gentools_library.hpp"
#include "ipybox/process/environment.hpp"
#include "ipybox/workspace/dotenv.hpp"
#include "ipybox/workspace/package_writer.hpp"
#include "ipybox/workspace/placeholders.hpp"
#include "source_generation.hpp"

namespace ipybox {
namespace app {
namespace {

// Regenerating replaces the whole folder: code written into it by hand would go without a word.
void refuse_hand_written_additions(const std::filesystem::path& mcptools,
                                   const std::string& server_name) {
    const auto additions = hand_written_additions(mcptools, server_name);
    if (additions.empty()) return;
    std::string text = "not regenerated: mcptools/" + server_name +
                       "/ holds code written by hand that regenerating would delete:\n";
    for (const auto& addition : additions) text += "  " + addition + "\n";
    text += "Move it to mcpparse/" + server_name +
            "/<tool>.py (the companion file ipybox never touches; run_parsed() belongs there, "
            "importing run from the tool module), delete it from mcptools/" +
            server_name + "/, then register again.";
    throw std::invalid_argument(text);
}

}  // namespace

std::vector<std::string> generate_from_pool(mcp_client_pool& pool, const std::string& server_name,
                                            const std::filesystem::path& trusted_root,
                                            const std::filesystem::path& package_root,
                                            std::vector<std::string>* loose_typing,
                                            const mcp::jsonrpc::cancellation_token& cancellation) {
    codegen::validate_server_name(server_name);
    refuse_hand_written_additions(trusted_root / package_root, server_name);
    std::vector<codegen::tool_descriptor> tools;
    // The generated files are the kernel's to read: a server that puts a value filled from a
    // ${VAR} into its tool list (a description echoing its environment) has it redacted.
    const auto& filled = core::process_redactor();
    for (const auto& tool : pool.list_tools(server_name, cancellation)) {
        tools.push_back(codegen::parse_tool_descriptor(
            filled.redact_json(tool.raw.is_null() ? tool.to_json() : tool.raw)));
    }
    auto package = codegen::generate_package(server_name, tools);
    // What a saved action that calls this server records, so that another project can register
    // it the same way (placeholders stay placeholders).
    if (const auto params = pool.params_of(server_name)) {
        package.files.push_back(
            {server_name + "/registration.json",
             filled.redact_json(registration_record(*params, trusted_root)).dump(2) + "\n"});
    }
    const auto written = workspace::write_generated_package(
        workspace::directory::open_root(trusted_root), package_root, server_name, package.files);
    std::vector<std::string> modules;
    for (const auto& module : package.modules) {
        modules.push_back(module.module_name);
        for (const auto& note : module.notes) {
            if (loose_typing != nullptr) loose_typing->push_back(module.module_name + ": " + note);
        }
    }
    core::logger("app")->info("generated {} modules for MCP server '{}' in {}", modules.size(),
                              server_name, written.string());
    return modules;
}

}  // namespace app

std::function<std::optional<std::string>(std::string_view)> host_variables(
    std::map<std::string, std::string> environment, std::filesystem::path dotenv_file) {
    return [environment = std::move(environment), dotenv_file = std::move(dotenv_file)](
               std::string_view name) -> std::optional<std::string> {
        if (name == workspace::workspace_variable) return dotenv_file.parent_path().string();
        if (const auto it = environment.find(std::string(name)); it != environment.end()) {
            return it->second;
        }
        const auto values = workspace::load_dotenv(dotenv_file);
        if (const auto it = values.find(std::string(name)); it != values.end()) return it->second;
        return std::nullopt;
    };
}

std::vector<std::string> generate_mcp_sources(const std::string& server_name,
                                              const nlohmann::json& server_params,
                                              const std::filesystem::path& root_dir,
                                              const generate_options& options) {
    codegen::validate_server_name(server_name);
    app::mcp_runtime runtime;
    app::pool_options pool_options;
    pool_options.variables = options.variables ? options.variables : [](std::string_view) {
        return std::optional<std::string>();
    };
    pool_options.default_cwd = options.working_directory.empty() ? std::filesystem::current_path()
                                                                 : options.working_directory;
    pool_options.connect_timeout = options.connect_timeout;
    if (options.host_environment) {
        pool_options.inherited_environment =
            process::filter_environment(*options.host_environment, process::default_allowlist());
    }
    app::mcp_client_pool pool(runtime.io(), pool_options);
    pool.register_server(server_name, server_params);
    return app::generate_from_pool(pool, server_name, root_dir, "");
}

}  // namespace ipybox
