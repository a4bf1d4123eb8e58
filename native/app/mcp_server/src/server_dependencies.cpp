// `ipybox mcp` adding what a saved code action needs, once the user approved it (the kernel's
// ipybox_runtime.requirements.add_dependencies, through the tool server's POST /dependencies).
#include "ipybox/codegen/naming.hpp"
#include "ipybox/core/untrusted_text.hpp"
#include "ipybox/gentools/gentools_library.hpp"
#include "server_tools.hpp"

namespace ipybox::app {

dependencies_added server_tools::add_dependencies(const approval::add_dependencies& what) {
    dependencies_added result{true, {}};
    const auto fail = [&result](const std::string& line) {
        result.added = false;
        result.report += line + "\n";
    };
    for (const auto& [name, params] : what.servers) {
        try {
            codegen::validate_server_name(name);
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
