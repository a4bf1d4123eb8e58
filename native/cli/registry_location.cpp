#include "registry_location.hpp"

#include <functional>
#include <sstream>

#include "ipybox/core/log.hpp"
#include "ipybox/core/sha256.hpp"
#include "ipybox/workspace/directory.hpp"

namespace ipybox::cli {

std::string registry_key(const std::filesystem::path& workspace) {
    std::error_code error;
    auto key = std::filesystem::weakly_canonical(std::filesystem::absolute(workspace), error);
    if (error) key = std::filesystem::absolute(workspace).lexically_normal();
    std::string text = key.string();
    while (text.size() > 1 && text.back() == '/') text.pop_back();
    return text;
}

std::string registry_file_name(const std::filesystem::path& workspace) {
    return core::sha256_hex(registry_key(workspace)) + ".json";
}

std::string legacy_registry_file_name(const std::filesystem::path& workspace) {
    std::stringstream name;
    name << std::hex << std::hash<std::string>{}(workspace.string());
    return name.str() + ".json";
}

bool migrate_registry_file(const std::filesystem::path& directory, const std::string& legacy_name,
                           const std::string& name) {
    try {
        const auto folder = workspace::directory::open_root(directory, false);
        // Only a file ipybox wrote: the registry is replaced by renaming, never through a link,
        // so a link or a FIFO at the old name is not one of its files.
        if (folder.kind(legacy_name) != workspace::directory::entry::regular_file) return false;
        // Swapped for a link after the check, the old name would move all the same; the reader
        // refuses a link at the new name (workspace::read_regular_file) and the next write
        // replaces it, so no link is followed either way.
        return folder.rename_no_replace(legacy_name, name);
    } catch (const std::exception&) {
        return false;  // no directory yet: nothing to move
    }
}

std::filesystem::path registry_file(const process::environment_map& environment,
                                    const std::filesystem::path& workspace) {
    std::filesystem::path base;
    if (const auto it = environment.find("XDG_STATE_HOME");
        it != environment.end() && !it->second.empty()) {
        base = it->second;
    } else if (const auto home = environment.find("HOME"); home != environment.end()) {
        base = std::filesystem::path(home->second) / ".local" / "state";
    } else {
        return {};
    }
    const auto directory = base / "ipybox" / "workspaces";
    const auto name = registry_file_name(workspace);
    const auto legacy_name = legacy_registry_file_name(workspace);
    if (migrate_registry_file(directory, legacy_name, name)) {
        core::logger("cli")->info("moved the server registry {} to {}",
                                  (directory / legacy_name).string(), (directory / name).string());
    }
    return directory / name;
}

}  // namespace ipybox::cli
