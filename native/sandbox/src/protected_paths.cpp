#include "ipybox/sandbox/protected_paths.hpp"

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

std::vector<std::filesystem::path> nested_git_entries(const std::filesystem::path& workspace,
                                                      int max_depth, std::size_t max_entries) {
    namespace fs = std::filesystem;
    std::vector<fs::path> found;
    std::error_code error;
    fs::recursive_directory_iterator it(workspace, fs::directory_options::skip_permission_denied,
                                        error);
    std::size_t seen = 0;
    for (; !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
        if (++seen > max_entries) break;
        const auto name = it->path().filename();
        const auto type = it->symlink_status(error).type();
        if (error) break;
        const bool folder = type == fs::file_type::directory;
        if (name == ".git") {
            if (it.depth() > 0 && (folder || type == fs::file_type::regular)) {
                found.push_back(it->path());
            }
            if (folder) it.disable_recursion_pending();
            continue;
        }
        if (folder && (it.depth() >= max_depth || name == "node_modules" ||
                       (it.depth() == 0 && name == ".ipybox"))) {
            it.disable_recursion_pending();
        }
    }
    return found;
}

}  // namespace ipybox::sandbox
