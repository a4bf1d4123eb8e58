#include "ipybox/gentools/gentools_library.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <sstream>

#include "ipybox/core/file_times.hpp"
#include "ipybox/core/log.hpp"
#include "ipybox/core/python_names.hpp"
#include "ipybox/core/untrusted_text.hpp"
#include "ipybox/workspace/bounded_read.hpp"
#include "ipybox/workspace/placeholders.hpp"

namespace ipybox::app {
namespace {

namespace fs = std::filesystem;

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
        if (entry.kind == workspace::directory::entry::directory &&
            core::is_public_identifier(entry.name)) {
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
    return std::to_string(core::modified_ns(info)) + ":" + std::to_string(info.st_size);
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

// The scans below read source that kernel code may have written (up to
// workspace::max_source_file_bytes) by hand, one character at a time: std::regex recurses once
// per character a repetition takes, so a 1 MiB identifier would overflow ipybox's stack.

namespace {

std::size_t blanks_end(std::string_view text, std::size_t at) {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
    return at;
}

// `keyword` at `at` followed by at least one blank: the position after the blanks, else npos.
std::size_t after_keyword(std::string_view text, std::size_t at, std::string_view keyword) {
    if (text.substr(at, keyword.size()) != keyword) return std::string_view::npos;
    const auto next = blanks_end(text, at + keyword.size());
    return next == at + keyword.size() ? std::string_view::npos : next;
}

// "<server>" or "<server>.<tool>" after "mcptools." at `at`: their ends, npos when not there.
struct dotted_name {
    std::string_view server, tool;
    std::size_t end = std::string_view::npos;
};
dotted_name mcptools_name(std::string_view text, std::size_t at) {
    constexpr std::string_view prefix = "mcptools.";
    if (text.substr(at, prefix.size()) != prefix) return {};
    const auto start = at + prefix.size();
    const auto server_end = core::identifier_end(text, start);
    if (server_end == start) return {};
    dotted_name name{text.substr(start, server_end - start), {}, server_end};
    if (server_end < text.size() && text[server_end] == '.') {
        const auto tool_end = core::identifier_end(text, server_end + 1);
        if (tool_end > server_end + 1) {
            name.tool = text.substr(server_end + 1, tool_end - server_end - 1);
            name.end = tool_end;
        }
    }
    return name;
}

// The names of "from mcptools.<server> import a, b as c" (or a parenthesised list).
void add_imported_names(std::string_view server, std::string_view names,
                        std::set<std::string>& found) {
    std::string list(names.substr(0, names.find('#')));
    std::erase(list, '(');
    std::erase(list, ')');
    std::stringstream items(list);
    for (std::string name; std::getline(items, name, ',');) {
        name = trim(name);
        name = name.substr(0, name.find_first_of(" \t"));  // drops "as alias"
        if (core::is_public_identifier(name)) found.insert(std::string(server) + "." + name);
    }
}

// The names of functions defined at the top of a module: "def f" or "async def f" at a line's
// start.
std::vector<std::string> top_level_functions(std::string_view text) {
    std::vector<std::string> names;
    for (std::size_t line = 0; line < text.size(); ++line) {
        auto at = line;
        if (const auto after_async = after_keyword(text, at, "async");
            after_async != std::string_view::npos) {
            at = after_async;
        }
        if (const auto name_at = after_keyword(text, at, "def");
            name_at != std::string_view::npos) {
            const auto end = core::identifier_end(text, name_at);
            if (end > name_at) names.emplace_back(text.substr(name_at, end - name_at));
        }
        line = text.find('\n', line);
        if (line == std::string_view::npos) break;
    }
    return names;
}

}  // namespace

std::set<std::string> mcptools_imports(const std::string& source) {
    const std::string_view text(source);
    std::set<std::string> found;
    // from mcptools.<server>[.<tool>] import <names>
    for (auto at = text.find("from"); at != std::string_view::npos;
         at = text.find("from", at + 1)) {
        const auto module_at = after_keyword(text, at, "from");
        if (module_at == std::string_view::npos) continue;
        const auto name = mcptools_name(text, module_at);
        if (name.end == std::string_view::npos) continue;
        const auto import_at = blanks_end(text, name.end);
        if (import_at == name.end) continue;
        const auto names_at = after_keyword(text, import_at, "import");
        if (names_at == std::string_view::npos) continue;
        if (!name.tool.empty()) {
            found.insert(std::string(name.server) + "." + std::string(name.tool));
            continue;
        }
        auto names_end = text.find('\n', names_at);
        if (text[names_at] == '(') {  // a list in parentheses may span lines
            const auto close = text.find(')', names_at);
            if (close != std::string_view::npos) names_end = close + 1;
        }
        add_imported_names(name.server, text.substr(names_at, names_end - names_at), found);
    }
    // import mcptools.<server>.<tool>
    for (auto at = text.find("import"); at != std::string_view::npos;
         at = text.find("import", at + 1)) {
        if (at > 0 && core::is_identifier_char(text[at - 1])) continue;
        const auto module_at = after_keyword(text, at, "import");
        if (module_at == std::string_view::npos) continue;
        const auto name = mcptools_name(text, module_at);
        if (!name.tool.empty())
            found.insert(std::string(name.server) + "." + std::string(name.tool));
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
    for (const auto& entry : workspace::list_entries(*generated)) {
        if (fs::path(entry.name).extension() != ".py" || entry.name == "__init__.py") continue;
        // A file name is kernel code's to choose: shown escaped and quoted.
        const auto where = "mcptools/" + server + "/" +
                           core::render_untrusted(entry.name, {.max_characters = 120});
        const auto source = read_source(*generated, entry.name);
        if (source.find("\nTOOL_NAME = ") == std::string::npos) {
            found.push_back(where);
            continue;
        }
        for (const auto& name : top_level_functions(source)) {
            if (name != "run") {
                found.push_back(where + ": def " +
                                core::render_untrusted(name, {.max_characters = 80}));
            }
        }
    }
    std::sort(found.begin(), found.end());
    return found;
}

namespace {

bool path_character(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
           c == '/' || c == '~';
}

// `text` with each whole occurrence of `path` (not a part of a longer name) replaced by the
// workspace placeholder.
std::string with_workspace_placeholder(const std::string& text, const std::string& path) {
    std::string out;
    std::size_t from = 0;
    for (auto at = text.find(path); at != std::string::npos; at = text.find(path, at + 1)) {
        const auto end = at + path.size();
        const bool starts = at == 0 || !path_character(text[at - 1]) || text[at - 1] == '=';
        const bool ends = end == text.size() || text[end] == '/' || !path_character(text[end]);
        if (!starts || !ends || at < from) continue;
        out +=
            text.substr(from, at - from) + "${" + std::string(workspace::workspace_variable) + "}";
        from = end;
    }
    return out + text.substr(from);
}

void replace_workspace(nlohmann::json& value, const std::string& path) {
    if (value.is_string()) {
        value = with_workspace_placeholder(value.get<std::string>(), path);
    } else if (value.is_array()) {
        for (auto& item : value) replace_workspace(item, path);
    }
}

}  // namespace

nlohmann::json registration_record(const nlohmann::json& params,
                                   const std::filesystem::path& workspace) {
    auto record = params;
    auto path = workspace.lexically_normal().string();
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    if (!workspace.empty() && path != "/" && record.is_object()) {
        for (const char* field : {"command", "args", "cwd", "url"}) {
            if (record.contains(field)) replace_workspace(record[field], path);
        }
    }
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
