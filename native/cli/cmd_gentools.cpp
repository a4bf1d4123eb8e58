#include "cmd_gentools.hpp"

#include <iostream>
#include <nlohmann/json.hpp>

#include "ipybox/core/json_decode.hpp"

namespace ipybox::cli {

void setup_gentools(CLI::App& app, gentools_options& options) {
    auto* gentools = app.add_subcommand("gentools", "Work with the library of saved code actions");
    gentools->require_subcommand(1);
    auto* check = gentools->add_subcommand(
        "check",
        "Check every saved action: api.py imports without impl.py, impl.py imports, and the "
        "examples in api.py run (exit status 1 when one is broken; nothing is changed)");
    add_kernel_flags(*check, options.kernel);
    add_server_flags(*check, options.servers);
    check
        ->add_option("--approve", options.approve,
                     "Tool calls made by the examples: none (refused: a dry check) or all")
        ->check(CLI::IsMember({"none", "all"}))
        ->capture_default_str();
}

int run_gentools_check(const gentools_options& options,
                       const process::environment_map& environment) {
    auto executor_config = executor_options(options.kernel, environment);
    executor_config.mcp_servers = collect_servers(options.servers);
    executor_config.keep_spare_kernel = false;
    code_executor executor(std::move(executor_config));
    std::string output;
    auto stream =
        executor.stream("from ipybox_runtime.checks import check_json\nprint(check_json())");
    while (auto step = stream.next_step()) {
        if (auto* request = std::get_if<approval_request>(&*step)) {
            // A check never saves into the user library nor adds dependencies, whatever
            // --approve says.
            if (request->needs_a_person()) {
                request->reject("ipybox gentools check saves nothing");
            } else if (options.approve == "all") {
                request->accept();
            } else {
                request->reject("ipybox gentools check --approve none");
            }
        } else if (auto* result = std::get_if<code_execution_result>(&*step)) {
            output = result->text;
        } else if (auto* failure = std::get_if<code_execution_failure>(&*step)) {
            std::cerr << "ipybox gentools check: " << screened(failure->message) << "\n";
            return exit_code_for(*failure);
        }
    }
    const auto line = output.substr(
        output.find_last_of('\n') == std::string::npos ? 0 : output.find_last_of('\n') + 1);
    // The kernel wrote this line: decoded within limits, and read field by field as it comes.
    nlohmann::json report;
    try {
        report = core::decode_json(line);
    } catch (const core::json_decode_error&) {
        report = nullptr;
    }
    if (!report.is_array()) {
        std::cerr << "ipybox gentools check: unexpected output from the kernel:\n"
                  << screened(output) << "\n";
        return exit_execution_error;
    }
    const auto text_of = [](const nlohmann::json& item, const char* key) {
        const auto it = item.is_object() ? item.find(key) : item.end();
        return it != item.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    int broken = 0;
    for (const auto& item : report) {
        const bool ok = item.is_object() && item.contains("ok") && item["ok"] == true;
        broken += ok ? 0 : 1;
        // The reason quotes the action's import error: text of the action and its tools.
        std::cout << (ok ? "ok      " : "BROKEN  ") << screened(text_of(item, "module")) << " ("
                  << screened(text_of(item, "origin")) << "): " << screened(text_of(item, "reason"))
                  << "\n";
    }
    std::cout << report.size() << " actions checked, " << broken << " broken\n";
    return broken == 0 ? exit_ok : exit_execution_error;
}

}  // namespace ipybox::cli
