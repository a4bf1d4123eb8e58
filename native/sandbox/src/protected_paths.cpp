#include "ipybox/sandbox/protected_paths.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <deque>
#include <map>
#include <mutex>

#include "ipybox/core/untrusted_text.hpp"

namespace ipybox::sandbox {

const std::vector<std::string>& credential_locations() {
    static const std::vector<std::string> names = {
        ".ssh",
        ".gnupg",
        ".aws",
        ".azure",
        ".kube",
        ".docker",
        ".config/gcloud",
        ".config/gh",
        ".config/hub",
        ".config/doctl",
        ".config/git/credentials",
        ".git-credentials",
        ".netrc",
        ".npmrc",
        ".pypirc",
        ".config/pip",
        ".cargo/credentials",
        ".cargo/credentials.toml",
        ".gem/credentials",
        ".m2/settings.xml",
        ".vault-token",
        ".terraform.d",
        ".password-store",
        ".local/share/keyrings",
        ".claude",
        ".claude.json",
        ".config/claude",
        ".npm/_logs",
        ".config/op",
        ".kaggle",
        ".pgpass",
        ".cache/huggingface/token",
        ".huggingface/token",
        ".bash_history",
        ".zsh_history",
        ".python_history",
        ".psql_history",
        ".mysql_history",
    };
    return names;
}

const std::vector<std::string>& workspace_configuration() {
    static const std::vector<std::string> names = {
        ".claude/settings.json",
        ".claude/settings.local.json",
        ".claude/hooks",
        ".claude/skills",
        ".claude/output-styles",
        ".claude/ipybox-sandbox.json",
        ".claude/CLAUDE.md",
        "CLAUDE.md",
        "CLAUDE.local.md",
        ".mcp.json",
        ".envrc",
        ".env",
        "sandbox-config.json",
        ".ipybox",
        ".git",
        "AGENTS.md",
        // srt's own list for the working directory, held here too so that ipybox makes their
        // placeholders (placeholder_hold.hpp) and srt never makes, nor removes, one.
        ".claude/commands",
        ".claude/agents",
        ".vscode",
        ".idea",
        ".gitconfig",
        ".gitmodules",
        ".bashrc",
        ".bash_profile",
        ".zshrc",
        ".zprofile",
        ".profile",
        ".ripgreprc",
    };
    return names;
}

const std::set<std::string>& workspace_configuration_directories() {
    static const std::set<std::string> names = {
        ".claude/hooks",
        ".claude/skills",
        ".claude/output-styles",
        ".claude/commands",
        ".claude/agents",
        ".ipybox",
        ".git",
        ".git/hooks",
        ".vscode",
        ".idea",
    };
    return names;
}

const std::vector<std::pair<std::string, std::vector<std::string>>>& runtime_entries_inside() {
    static const std::vector<std::pair<std::string, std::vector<std::string>>> entries = {
        {".claude", {"commands", "agents"}},
        {".git", {"hooks", "config"}},
    };
    return entries;
}

protected_paths default_protections(const std::filesystem::path& home,
                                    const std::filesystem::path& workspace,
                                    const std::vector<std::filesystem::path>& state_directories,
                                    const std::vector<std::filesystem::path>& config_files,
                                    bool claude_folder_exists) {
    protected_paths out;
    if (!home.empty()) {
        for (const auto& name : credential_locations()) out.unreadable.push_back(home / name);
    }
    for (const auto& directory : state_directories) out.unreadable.push_back(directory);
    for (const auto& name : workspace_configuration()) {
        // An existing .claude is protected whole (rules/, statusline scripts, plugins, ...);
        // a missing one is kept from being made by the entries inside it.
        if (claude_folder_exists && name.rfind(".claude/", 0) == 0) continue;
        out.unwritable.push_back(workspace / name);
    }
    if (claude_folder_exists) out.unwritable.push_back(workspace / ".claude");
    for (const auto& file : config_files) out.unwritable.push_back(file);
    return out;
}

namespace {

namespace fs = std::filesystem;

// Every .git found so far, by workspace, for the life of the process: a repository found once
// stays protected whatever the workspace holds later (entries made to use up the search).
std::mutex remembered_mutex;
std::map<fs::path, std::set<fs::path>>& remembered() {
    static std::map<fs::path, std::set<fs::path>> found;
    return found;
}

std::string with_thousands(std::size_t number) {
    auto digits = std::to_string(number);
    for (auto at = digits.size(); at > 3; at -= 3) digits.insert(at - 3, ",");
    return digits;
}

[[noreturn]] void incomplete(const fs::path& workspace, const std::string& why) {
    throw nested_git_search_incomplete(
        "the repositories nested in workspace " + workspace.string() +
        " cannot all be protected: " + why +
        ". A sandboxed kernel starts only once every folder of the workspace was searched for a "
        "nested .git, which it must not write (a kernel could have made the workspace so to "
        "leave one writable)");
}

// A folder the search cannot read hides what is in it. One of the user's own could have been
// made so by a kernel (which runs as the user); another user's could not.
void check_readable(const fs::path& workspace, const fs::path& folder, const std::error_code& why) {
    struct stat info {};
    if (::lstat(folder.c_str(), &info) == 0 && info.st_uid != ::geteuid()) return;
    incomplete(workspace, "the folder " + core::quote_untrusted(folder.string(), 200) +
                              " cannot be read (" + why.message() + ")");
}

}  // namespace

std::vector<std::filesystem::path> nested_git_entries(const std::filesystem::path& workspace,
                                                      int max_depth, std::size_t max_entries) {
    // Breadth first: the repositories nearest the top, those a person is likeliest to work in,
    // are found before anything deeper can use up the search.
    std::set<fs::path> found;
    std::deque<std::pair<fs::path, int>> folders{{workspace, 0}};
    std::size_t seen = 0;
    while (!folders.empty()) {
        const auto [folder, depth] = std::move(folders.front());
        folders.pop_front();
        std::error_code error;
        fs::directory_iterator it(folder, error);
        if (error) {
            if (error == std::errc::no_such_file_or_directory) continue;  // gone
            check_readable(workspace, folder, error);
            continue;
        }
        for (; !error && it != fs::directory_iterator(); it.increment(error)) {
            if (++seen > max_entries) {
                incomplete(workspace,
                           "it has more than " + with_thousands(max_entries) + " entries within " +
                               std::to_string(max_depth) +
                               " folders of its top (node_modules not counted; move large "
                               "folders out of it)");
            }
            const auto name = it->path().filename();
            // The type the listing gave (no lstat per entry); a link is neither folder nor file.
            std::error_code type_error;
            if (it->is_symlink(type_error) || type_error) continue;
            const bool is_folder = it->is_directory(type_error);
            if (type_error) continue;  // gone since it was listed
            if (name == ".git") {
                if (depth > 0 && (is_folder || it->is_regular_file(type_error))) {
                    found.insert(it->path());
                }
                continue;  // a repository's own folder is protected whole, not searched
            }
            if (!is_folder || depth >= max_depth || name == "node_modules" ||
                (depth == 0 && name == ".ipybox")) {
                continue;
            }
            folders.emplace_back(it->path(), depth + 1);
        }
        if (error) check_readable(workspace, folder, error);
    }
    std::lock_guard lock(remembered_mutex);
    auto& known = remembered()[workspace];
    known.insert(found.begin(), found.end());
    std::vector<fs::path> out;
    for (auto entry = known.begin(); entry != known.end();) {
        std::error_code error;
        const auto type = fs::symlink_status(*entry, error).type();
        if (type == fs::file_type::not_found) {  // gone: forgotten, so the set cannot only grow
            entry = known.erase(entry);
            continue;
        }
        // One that cannot be looked at now (a folder above it made unreadable) stays listed.
        if (error || type == fs::file_type::directory || type == fs::file_type::regular) {
            out.push_back(*entry);
        }
        ++entry;
    }
    return out;
}

}  // namespace ipybox::sandbox
