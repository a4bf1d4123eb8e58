#include "doctor_policy.hpp"

#include <iostream>

#include "host_context.hpp"
#include "ipybox/approval/policy.hpp"
#include "ipybox/core/redactor.hpp"
#include "ipybox/core/untrusted_text.hpp"
#include "ipybox/mcp_server.hpp"
#include "server_flags.hpp"

namespace ipybox::cli {
namespace {

// The tool's name is the server's text: redacted as everything else the CLI prints (a value
// filled from a ${VAR} shows as ${VAR}) and shown escaped, line breaks too (a name with escape
// sequences or lines of its own cannot redraw the report). The Python name is derived from the
// raw name: where that held a filled value, the derived name may hold it in a form redaction does
// not know (characters replaced), so it is left out.
std::string tool_label(const approval::request& what) {
    const auto* call = std::get_if<approval::tool_call>(&what);
    if (!call) {  // a shell command: the name the policy gives it
        return approval::policy_names(what).front() + " (shell commands, with shell approval on)";
    }
    const auto& tool = *call;
    const auto redacted = core::redact_secrets(tool.tool_name);
    std::string label = tool.server_name + "." + core::render_untrusted(redacted);
    if (redacted != tool.tool_name) {
        label += " (Python name not shown: the tool's name holds a secret)";
    } else if (!tool.python_name.empty() && tool.python_name != tool.tool_name) {
        label +=
            " (Python: " + tool.server_name + "." + core::render_untrusted(tool.python_name) + ")";
    }
    return label;
}

}  // namespace

int check_approval_policy(const std::string& policy_file, const std::filesystem::path& workspace,
                          const process::environment_map& environment) {
    approval::policy policy;
    try {
        policy = approval::policy::from_json(
            parse_json_argument("--approval-policy", "@" + policy_file));
    } catch (const std::exception& e) {
        std::cout << "Approval policy " << policy_file << ": INVALID: " << screened(e.what())
                  << "\n";
        return exit_usage;
    }
    std::cout << "Approval policy " << policy_file << ": valid, default "
              << approval::to_string(policy.fallback()) << ", " << policy.rules().size()
              << " rule(s)\n";

    // The tools as `ipybox mcp` would see them: the registry's servers, started the same way.
    code_executor_options options;
    options.workspace = workspace;
    options.host_environment = environment;
    options.mcp_servers = registered_mcp_servers(registry_file(environment, workspace));
    code_executor executor(options);
    std::vector<std::string> unreachable;
    std::vector<approval::request> tools;
    for (auto& tool : executor.mcp_tool_names(unreachable)) {
        approval::tool_call call{std::move(tool.server_name), std::move(tool.tool_name),
                                 nlohmann::json::object(), std::move(tool.python_name)};
        tools.emplace_back(std::move(call));
    }
    for (auto& form : approval::shell_command_forms()) tools.push_back(std::move(form));

    std::cout << "\nRegistered MCP servers of " << workspace.string() << ": "
              << (options.mcp_servers.empty() ? "none" : "") << "\n";
    for (const auto& [name, params] : options.mcp_servers) std::cout << "  " << name << "\n";
    for (const auto& problem : unreachable)
        std::cout << "  cannot list tools: " << screened(problem) << "\n";

    std::cout << "\nRules (the first that matches a call decides):\n";
    const auto covered = policy.coverage(tools);
    bool every_rule_covers = true;
    for (std::size_t r = 0; r < covered.size(); ++r) {
        std::cout << "  " << policy.describe_rule(r) << "\n";
        if (covered[r].empty()) {
            every_rule_covers = false;
            std::cout << "      covers NO tool: check the server and tool names\n";
        }
        for (const auto index : covered[r])
            std::cout << "      " << tool_label(tools[index]) << "\n";
    }
    if (!every_rule_covers) {
        std::cout << "\nWarning: some rules cover none of the registered tools"
                  << (unreachable.empty() ? "" : " (some servers could not be listed)") << ".\n";
    }
    return exit_ok;
}

}  // namespace ipybox::cli
