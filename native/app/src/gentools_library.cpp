#include "gentools_library.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <regex>
#include <sstream>

#include "ipybox/core/log.hpp"
#include "ipybox/workspace/bounded_read.hpp"

namespace ipybox::app {
namespace {

namespace fs = std::filesystem;

bool is_identifier(const std::string& name) {
    if (name.empty() || name[0] == '_' || std::isdigit(static_cast<unsigned char>(name[0])))
        return false;
    return std::all_of(name.begin(), name.end(),
                       [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

// A library root or a folder of generated modules, opened through its parent (which the user
// chose): kernel code may have replaced the folder itself with a link. nullopt when it is not
// there or cannot be read (said in the log).
std::optional<workspace::directory> open_folder(const fs::path& folder) {
    try {
        return workspace::directory::open_root(folder.parent_path(), false)
            .open_if_exists(folder.filename());
    } catch (const std::exception& e) {
        core::logger("app")->warn("not reading {}: {}", folder.string(), e.what());
        return std::nullopt;
    }
}

// Sub-folders named like Python packages, sorted (as the kernel's library module lists them).
// Links are left out: the host reads no folder a link leads to.
std::vector<workspace::directory> package_dirs(const workspace::directory& folder) {
    std::vector<workspace::directory> found;
    for (const auto& entry : workspace::list_entries(folder)) {
        if (entry.kind == workspace::directory::entry::directory && is_identifier(entry.name)) {
            found.push_back(folder.open(entry.name));
        }
    }
    return found;
}

// The text of a Python source in `folder`; "" when it is missing, or refused (a link, a FIFO, a
// device, a file over max_source_file_bytes: said in the log).
std::string read_source(const workspace::directory& folder, const std::string& name) {
    try {
        return workspace::read_regular_file(folder, name, workspace::max_source_file_bytes)
            .value_or(std::string());
    } catch (const std::exception& e) {
        core::logger("app")->warn("{}", e.what());
        return {};
    }
}

std::string file_stamp(const workspace::directory& folder, const std::string& name) {
    struct stat info {};
    if (::fstatat(folder.descriptor(), name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
        return "-1:-1";
    }
    const auto nanoseconds =
        static_cast<long long>(info.st_mtim.tv_sec) * 1000000000LL + info.st_mtim.tv_nsec;
    return std::to_string(nanoseconds) + ":" + std::to_string(info.st_size);
}

std::string fnv1a_hex(const std::string& text) {
    std::uint64_t hash = 1469598103934665603ULL;
    for (const unsigned char c : text) {
        hash ^= c;
        hash *= 1099511628211ULL;
    }
    std::ostringstream out;
    out << std::hex << hash;
    return out.str();
}

std::string trim(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r\n\\");
    if (first == std::string::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t\r\n\\") - first + 1);
}

}  // namespace

std::set<std::string> mcptools_imports(const std::string& source) {
    std::set<std::string> found;
    static const std::regex from_import(
        R"(from[ \t]+mcptools\.([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?[ \t]+import[ \t]+(\([^)]*\)|[^\n]*))");
    for (std::sregex_iterator it(source.begin(), source.end(), from_import), end; it != end; ++it) {
        const std::string server = (*it)[1];
        if ((*it)[2].matched) {
            found.insert(server + "." + (*it)[2].str());
            continue;
        }
        std::string names = (*it)[3];
        names.erase(std::remove(names.begin(), names.end(), '('), names.end());
        names.erase(std::remove(names.begin(), names.end(), ')'), names.end());
        std::stringstream list(names.substr(0, names.find('#')));
        for (std::string name; std::getline(list, name, ',');) {
            name = trim(name);
            name = name.substr(0, name.find_first_of(" \t"));  // drops "as alias"
            if (is_identifier(name)) found.insert(server + "." + name);
        }
    }
    static const std::regex plain_import(
        R"(\bimport[ \t]+mcptools\.([A-Za-z_]\w*)\.([A-Za-z_]\w*))");
    for (std::sregex_iterator it(source.begin(), source.end(), plain_import), end; it != end;
         ++it) {
        found.insert((*it)[1].str() + "." + (*it)[2].str());
    }
    return found;
}

std::vector<saved_action> scan_actions(const std::vector<fs::path>& roots) {
    std::map<std::string, saved_action> winners;
    for (const auto& root : roots) {
        const auto library = open_folder(root);
        if (!library) continue;
        try {
            for (const auto& category : package_dirs(*library)) {
                for (const auto& action_dir : package_dirs(category)) {
                    if (action_dir.kind("api.py") != workspace::directory::entry::regular_file)
                        continue;
                    const auto module = "gentools." + category.path().filename().string() + "." +
                                        action_dir.path().filename().string();
                    if (winners.count(module)) continue;  // an earlier root wins
                    saved_action action{module, action_dir.path(), {}, {}};
                    for (const char* file : {"api.py", "impl.py"}) {
                        action.calls.merge(mcptools_imports(read_source(action_dir, file)));
                    }
                    action.stamp =
                        file_stamp(action_dir, "api.py") + "/" + file_stamp(action_dir, "impl.py");
                    winners.emplace(module, std::move(action));
                }
            }
        } catch (const std::exception& e) {  // a folder swapped for a link while listed
            core::logger("app")->warn("stopped reading the library {}: {}", root.string(),
                                      e.what());
        }
    }
    std::vector<saved_action> actions;
    actions.reserve(winners.size());
    for (auto& [module, action] : winners) actions.push_back(std::move(action));
    return actions;
}

std::map<std::string, std::string> module_hashes(const fs::path& mcptools,
                                                 const std::string& server) {
    std::map<std::string, std::string> hashes;
    const auto generated = open_folder(mcptools / server);
    if (!generated) return hashes;
    for (const auto& entry : workspace::list_entries(*generated)) {
        const fs::path name(entry.name);
        if (name.extension() != ".py" || entry.name == "__init__.py") continue;
        hashes[server + "." + name.stem().string()] =
            fnv1a_hex(read_source(*generated, entry.name));
    }
    return hashes;
}

std::map<std::string, std::string> current_hashes(const fs::path& mcptools,
                                                  const std::vector<saved_action>& actions) {
    std::set<std::string> servers;
    for (const auto& action : actions) {
        for (const auto& call : action.calls) servers.insert(call.substr(0, call.find('.')));
    }
    std::map<std::string, std::string> hashes;
    for (const auto& server : servers) hashes.merge(module_hashes(mcptools, server));
    return hashes;
}

nlohmann::json update_pins(nlohmann::json& pins, const std::vector<saved_action>& actions,
                           const std::map<std::string, std::string>& previous,
                           const std::map<std::string, std::string>& current) {
    if (!pins.is_object()) pins = nlohmann::json::object();
    auto flags = nlohmann::json::object();
    for (const auto& action : actions) {
        auto& pin = pins[action.module];
        // New, or edited since it was pinned: what it calls now is what it was written against.
        const bool repin = !pin.is_object() || pin.value("stamp", "") != action.stamp;
        if (repin) pin = {{"stamp", action.stamp}, {"tools", nlohmann::json::object()}};
        auto& tools = pin["tools"];
        std::vector<std::string> changed;
        for (const auto& call : action.calls) {
            const auto now = current.find(call);
            if (!tools.contains(call)) {
                // Written against the modules that were there before this regeneration.
                if (const auto before = previous.find(call); before != previous.end()) {
                    tools[call] = before->second;
                } else if (now != current.end()) {
                    tools[call] = now->second;
                } else {
                    continue;  // a tool of a server that is not registered (yet)
                }
            }
            if (now == current.end() || tools[call] != now->second) changed.push_back(call);
        }
        if (!changed.empty()) {
            flags[action.module] = {{"tools", changed}, {"stamp", action.stamp}};
        }
    }
    return flags;
}

std::string describe_flags(const nlohmann::json& flags) {
    std::string text;
    for (const auto& [module, flag] : flags.items()) {
        text += "  " + module + " (calls ";
        bool first = true;
        for (const auto& tool : flag["tools"]) {
            text += (first ? "" : ", ") + tool.get<std::string>();
            first = false;
        }
        text += ")\n";
    }
    return text;
}

std::vector<std::string> hand_written_additions(const fs::path& mcptools,
                                                const std::string& server) {
    std::vector<std::string> found;
    const auto generated = open_folder(mcptools / server);
    if (!generated) return found;
    static const std::regex top_level_def(R"((?:^|\n)(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*))");
    for (const auto& entry : workspace::list_entries(*generated)) {
        if (fs::path(entry.name).extension() != ".py" || entry.name == "__init__.py") continue;
        const auto where = "mcptools/" + server + "/" + entry.name;
        const auto source = read_source(*generated, entry.name);
        if (source.find("\nTOOL_NAME = ") == std::string::npos) {
            found.push_back(where);
            continue;
        }
        for (std::sregex_iterator it(source.begin(), source.end(), top_level_def), end; it != end;
             ++it) {
            if ((*it)[1] != "run") found.push_back(where + ": def " + (*it)[1].str());
        }
    }
    std::sort(found.begin(), found.end());
    return found;
}

nlohmann::json registration_record(const nlohmann::json& params) {
    auto record = params;
    const auto placeholder_for = [](std::string name) {
        for (auto& c : name) {
            c = std::isalnum(static_cast<unsigned char>(c))
                    ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                    : '_';
        }
        return "${" + name + "}";
    };
    for (const char* field : {"env", "headers"}) {
        if (!record.contains(field) || !record[field].is_object()) continue;
        for (auto& [name, value] : record[field].items()) {
            if (!value.is_string() || value.get<std::string>().find("${") == std::string::npos) {
                value = placeholder_for(name);
            }
        }
    }
    return record;
}

}  // namespace ipybox::app
