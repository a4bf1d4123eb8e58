// `ipybox mcp` adding what a saved code action needs, once the user approved it (the kernel's
// ipybox_runtime.requirements.add_dependencies, through the tool server's POST /dependencies).
#include "ipybox/codegen/naming.hpp"
#include "ipybox/core/untrusted_text.hpp"
#include "ipybox/gentools/gentools_library.hpp"
#include "server_tools.hpp"

namespace ipybox::app {
namespace {

// The names of `servers` registered in `registered` with other parameters, as one sentence, or
// "" when there is none.
std::string replaced_registrations(const std::map<std::string, nlohmann::json>& servers,
                                   const std::map<std::string, nlohmann::json>& registered) {
    std::string names;
    for (const auto& [name, params] : servers) {
        const auto found = registered.find(name);
        if (found == registered.end() || found->second == params) continue;
        names += (names.empty() ? "" : ", ") + name;
    }
    if (names.empty()) return {};
    return "this project already has MCP servers registered as " + names +
           " with other parameters, and adding a saved action's dependencies never replaces a "
           "registration. If the action's registration is the one wanted, "
           "register it with register_mcp_server (which the user approves as such); else adapt "
           "the action to the registered server";
}

}  // namespace

std::string server_tools::dependencies_refusal(const approval::add_dependencies& what) const {
    auto refused = replaced_registrations(what.servers, registry_.load());
    return refused.empty() ? refused : refused + " (nobody was asked)";
}

dependencies_added server_tools::add_dependencies(const approval::add_dependencies& what) {
    dependencies_added result{true, {}};
    const auto fail = [&result](const std::string& line) {
        result.added = false;
        result.report += line + "\n";
    };
    const auto registered = registry_.load();
    for (const auto& [name, params] : what.servers) {
        try {
            codegen::validate_server_name(name);
            // Registered since the question was asked: the user's registration stays.
            if (auto refused = replaced_registrations({{name, params}}, registered);
                !refused.empty()) {
                fail("did not register MCP server " + name + ": " + refused);
                continue;
            }
            const auto previous = module_hashes(options_.workspace / "mcptools", name);
            std::vector<std::string> loose_typing;
            const auto modules = executor_.register_mcp_server(name, params, true, &loose_typing);
            registry_.remember(name, params);
            // The flags reach the kernel with the next reset or registration: the cell that
            // asked is still running, and a message to the kernel now would wait for it.
            update_action_pins(previous);
            result.report += "registered MCP server " + name + " (" +
                             std::to_string(modules.size()) + " tool modules in mcptools/" + name +
                             ")\n";
        } catch (const std::exception& e) {
            fail("could not register MCP server " + name + ": " +
                 core::render_untrusted(e.what(), {300}));
        }
    }
    for (const auto& package : what.packages) {
        if (package.for_user && user_site_packages(options_.library_roots).empty()) {
            fail("could not install " + core::quote_untrusted(package.spec, 200) +
                 " for every project: ipybox has no user library");
            continue;
        }
        const auto outcome = install_spec(package.spec, package.for_user);
        if (outcome.succeeded) {
            result.report += "installed " + core::quote_untrusted(package.spec, 200) +
                             (package.for_user ? " for every project\n" : " for this project\n");
        } else {
            fail("could not install " + core::quote_untrusted(package.spec, 200) + ": " +
                 core::render_untrusted(outcome.output, {2000}));
        }
    }
    return result;
}

}  // namespace ipybox::app
