#pragma once
// What a sandboxed kernel may never read or write, whatever the user's srt config says (the user
// can only add to these lists). Pure: paths in, paths out; nothing is looked up on disk.
//
// Unreadable (credentials and ipybox's own state), relative to the home directory:
//   .ssh .gnupg .aws .azure .kube .docker .config/gcloud .config/gh .config/hub .config/doctl
//   .config/git/credentials .git-credentials .netrc .npmrc .pypirc .config/pip .cargo/credentials
//   .cargo/credentials.toml .gem/credentials .m2/settings.xml .vault-token .terraform.d
//   .password-store .local/share/keyrings .claude .claude.json .config/claude .npm/_logs
//   .config/op .kaggle .pgpass .cache/huggingface/token .huggingface/token and shell and client
//   histories (.bash_history .zsh_history .python_history .psql_history .mysql_history)
//   and ipybox's state directory (the registry of servers with their literal secrets).
// Denying ~/.claude and ~/.npm/_logs also switches off srt's "convenience" write grants there
// (~/.claude/debug, ~/.npm/_logs): srt drops a grant that a read deny covers.
//
// Unwritable inside the workspace (read as configuration or run by a later session, by ipybox,
// by Claude Code, by git or by a shell), on top of srt's own list (.claude/commands,
// .claude/agents, .vscode, .idea, .gitconfig, .gitmodules, shell rc files, .mcp.json):
//   .claude (whole when it exists; when it does not, its entries settings.json,
//   settings.local.json, hooks, skills, output-styles, ipybox-sandbox.json, CLAUDE.md keep it
//   from being made), CLAUDE.md CLAUDE.local.md AGENTS.md .mcp.json .envrc .env
//   sandbox-config.json .ipybox, srt's own list (.claude/commands .claude/agents .vscode .idea
//   .gitconfig .gitmodules .bashrc .bash_profile .zshrc .zprofile .profile .ripgreprc), and
//   .git whole (hooks and config, but also commondir, HEAD,
//   info/ and the rest git on the host would read: the kernel reads the repository, it does not
//   change it), plus every configuration file given to ipybox (`config_files`: the sandbox
//   config, the approval policy), wherever it lies. srt places its own entries inside .claude
//   (commands, agents): the caller makes those folders before protecting an existing .claude.
#include <cstddef>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ipybox::sandbox {

struct protected_paths {
    std::vector<std::filesystem::path> unreadable;
    std::vector<std::filesystem::path> unwritable;
};

// The relative names listed above, for documentation and doctor.
const std::vector<std::string>& credential_locations();
const std::vector<std::string>& workspace_configuration();
// Those of workspace_configuration() that are directories when they exist (their placeholders
// are directories too).
const std::set<std::string>& workspace_configuration_directories();
// The entries srt denies inside a folder ipybox protects whole, when that folder exists (srt's
// own list: .claude/commands and .claude/agents; .git/hooks and .git/config). srt makes a mount
// point for a missing one, which fails inside a read-only folder: they must exist.
const std::vector<std::pair<std::string, std::vector<std::string>>>& runtime_entries_inside();

// The search for nested repositories could not cover the whole workspace (nested_git_entries).
class nested_git_search_incomplete : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// The `.git` entries (a repository's folder, or a gitfile naming one) of repositories nested in
// `workspace` below its own: each is protected whole, because git on the host reads more there
// than srt's nested .git/hooks and .git/config (commondir, say, which can point the repository
// at a config the kernel wrote, whose core.fsmonitor git then runs). Searched breadth first,
// following no link; the workspace's own .git, .ipybox and node_modules folders and a
// repository's own .git are not searched; folders `max_depth` down are not searched either
// (README, "nested folders"). Returns what it finds now and every entry found by an earlier
// call for the same workspace that still exists: a repository once found stays protected for
// the life of the process.
// Fails closed: throws nested_git_search_incomplete, naming the workspace and the bound, when
// it meets more than `max_entries` entries, or a folder of the user's that it cannot read
// (either could hide a .git from it). Thread-safe.
std::vector<std::filesystem::path> nested_git_entries(const std::filesystem::path& workspace,
                                                      int max_depth = 8,
                                                      std::size_t max_entries = 200000);

// `home` may be empty (no HOME): the credential list is then left out.
protected_paths default_protections(const std::filesystem::path& home,
                                    const std::filesystem::path& workspace,
                                    const std::vector<std::filesystem::path>& state_directories,
                                    const std::vector<std::filesystem::path>& config_files,
                                    bool claude_folder_exists);

}  // namespace ipybox::sandbox
