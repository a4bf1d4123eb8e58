#include "ipybox/sandbox/srt_settings.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ipybox::sandbox {
namespace {

using nlohmann::json;

json& object_field(json& parent, const char* name, const std::string& where) {
    auto& field = parent[name];
    if (field.is_null()) field = json::object();
    if (!field.is_object()) throw std::invalid_argument(where + name + " must be an object");
    return field;
}

json& string_list(json& parent, const char* name, const std::string& where) {
    auto& field = parent[name];
    if (field.is_null()) field = json::array();
    // srt also takes {"path": ..., "literal": true} entries in the filesystem lists.
    const auto valid_entry = [](const json& entry) {
        return entry.is_string() || (entry.is_object() && entry.contains("path"));
    };
    if (!field.is_array() || !std::all_of(field.begin(), field.end(), valid_entry)) {
        throw std::invalid_argument(where + name + " must be a list of strings");
    }
    return field;
}

void append_paths(json& list, const std::vector<std::filesystem::path>& paths) {
    for (const auto& path : paths) {
        const auto text = path.string();
        if (std::find(list.begin(), list.end(), json(text)) == list.end()) list.push_back(text);
    }
}

// What only bubblewrap reads: on darwin srt ignores them, and the file says what applies.
constexpr const char* bubblewrap_settings[] = {"bwrapPath",
                                               "socatPath",
                                               "seccomp",
                                               "ripgrep",
                                               "mandatoryDenySearchDepth",
                                               "enableWeakerNestedSandbox",
                                               "allowNestedUserNamespaces"};

}  // namespace

json srt_settings(const json& user, const sandbox_paths& paths, sandbox_platform platform) {
    if (!user.is_null() && !user.is_object()) {
        throw std::invalid_argument(
            "the sandbox config must be a JSON object like "
            "{\"network\": {...}, \"filesystem\": {...}}");
    }
    json settings = user.is_null() ? json::object() : user;
    if (platform == sandbox_platform::darwin) {
        for (const char* name : bubblewrap_settings) settings.erase(name);
    }

    auto& network = object_field(settings, "network", "");
    string_list(network, "allowedDomains", "network.");
    string_list(network, "deniedDomains", "network.");
    if (platform == sandbox_platform::darwin) {
        network["allowAllUnixSockets"] = false;
        append_paths(string_list(network, "allowUnixSockets", "network."), paths.unix_sockets);
    } else {
        network["allowAllUnixSockets"] = true;
    }

    auto& filesystem = object_field(settings, "filesystem", "");
    append_paths(string_list(filesystem, "allowWrite", "filesystem."), paths.writable);
    append_paths(string_list(filesystem, "denyRead", "filesystem."), paths.unreadable);
    append_paths(string_list(filesystem, "denyWrite", "filesystem."), paths.unwritable);
    append_paths(string_list(filesystem, "allowRead", "filesystem."), paths.readable);
    return settings;
}

}  // namespace ipybox::sandbox
