// The gentools library in `ipybox mcp`: the search_tools tool and the pins of saved actions.
#include "ipybox/codegen/python_literal.hpp"
#include "ipybox/gentools/gentools_library.hpp"
#include "server_tool_support.hpp"
#include "server_tools.hpp"

namespace ipybox::app {
namespace {

using mcp::session::call_tool_result;
using nlohmann::json;

std::vector<std::filesystem::path> gentools_roots(const mcp_server_options& options) {
    std::vector<std::filesystem::path> roots{options.workspace / "gentools"};
    roots.insert(roots.end(), options.library_roots.begin(), options.library_roots.end());
    return roots;
}

}  // namespace

call_tool_result server_tools::search_tools(const json& arguments,
                                            const mcp::session::request_context&) {
    const auto& query = arguments.at("query").get_ref<const std::string&>();
    const auto limit = arguments.at("limit").get<long long>();  // 1 to 50 (server_tool_table.cpp)
    // The kernel holds the index (files are read, never imported); the query reaches it as an
    // escaped literal.
    const auto code =
        "print(__import__('ipybox_runtime.search', fromlist=['format_search']).format_search(" +
        codegen::python_string_literal(query) + ", " + std::to_string(limit) + "))";
    auto text = executor_.execute(code).text;
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return call_tool_result::text(text);
}

json pin_saved_actions(const mcp_server_options& options, server_registry& registry,
                       const std::map<std::string, std::string>& previous) {
    return pin_actions(gentools_roots(options), options.workspace / "mcptools", registry, previous);
}

json server_tools::update_action_pins(const std::map<std::string, std::string>& previous) {
    return pin_saved_actions(options_, registry_, previous);
}

void server_tools::send_flags_to_kernel(const json& flags) {
    if (flags.empty() || executor_.kernel_pid() == 0) return;
    try {
        executor_.execute(
            "__import__('ipybox_runtime.library', fromlist=['note_changed_tools'])"
            ".note_changed_tools(__import__('json').loads(" +
            codegen::python_string_literal(flags.dump()) + "))");
    } catch (const std::exception& e) {
        core::logger("server")->warn("cannot mark the flagged actions in the kernel: {}", e.what());
    }
}

}  // namespace ipybox::app
