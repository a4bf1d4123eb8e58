#include "ipybox/gentools_pins.hpp"

#include "ipybox/gentools/gentools_library.hpp"
#include "ipybox/gentools/server_registry.hpp"

namespace ipybox {

nlohmann::json app::pin_actions(const std::vector<std::filesystem::path>& roots,
                                const std::filesystem::path& mcptools, server_registry& registry,
                                const std::map<std::string, std::string>& previous) {
    const auto actions = scan_actions(roots);
    const auto current = current_hashes(mcptools, actions);
    auto before = current;  // servers that were not regenerated are as they were
    for (const auto& [tool, hash] : previous) before[tool] = hash;
    // A tool of the regenerated server that is gone counts as changed.
    auto pins = registry.load_pins();
    auto flags = update_pins(pins, actions, before, current);
    registry.save_pins(pins);
    return flags;
}

std::map<std::string, std::string> tool_versions(const std::filesystem::path& mcptools,
                                                 const std::string& server) {
    return app::module_hashes(mcptools, server);
}

nlohmann::json repin_saved_actions(const std::filesystem::path& workspace,
                                   const std::vector<std::filesystem::path>& library_roots,
                                   const std::filesystem::path& registry_file,
                                   const std::map<std::string, std::string>& previous) {
    std::vector<std::filesystem::path> roots{workspace / "gentools"};
    roots.insert(roots.end(), library_roots.begin(), library_roots.end());
    app::server_registry registry(registry_file);
    return app::pin_actions(roots, workspace / "mcptools", registry, previous);
}

std::string describe_changed_actions(const nlohmann::json& flags) {
    return app::describe_flags(flags);
}

}  // namespace ipybox
