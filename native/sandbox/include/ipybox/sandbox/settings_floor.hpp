#pragma once
// What a sandbox config (the user's `--sandbox-config`, or the project's
// `.claude/ipybox-sandbox.json` that the codeact-sandbox plugin passes) may not do: lift what
// ipybox protects. A config may add network domains and paths; it may never open a path ipybox
// keeps unreadable or unwritable, and it may not set the srt settings that weaken the sandbox as
// a whole or name programs srt runs on the host. Pure: paths in, verdicts out.
//
// Accepted settings, all others refused by name:
//   network:    allowedDomains, deniedDomains, deniedDomainReasons, allowLocalBinding
//   filesystem: denyRead, allowRead, allowWrite, denyWrite
// Refused, for instance: bwrapPath, socatPath, ripgrep, seccomp (programs srt runs on the host,
// which could lie in the kernel-writable workspace), enableWeakerNestedSandbox,
// enableWeakerNetworkIsolation, allowNestedUserNamespaces, mandatoryDenySearchDepth,
// filesystem.allowGitConfig, git (each loosens what ipybox counts on), network.allowUnixSockets
// and the proxy settings (ipybox sets what it needs there itself).
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ipybox::sandbox {

// Throws std::invalid_argument naming the first setting of `user` (null: none) that ipybox does
// not accept, and why.
void check_accepted_settings(const nlohmann::json& user);

// One path a config grants, in the forms it may take on disk (as written, with `~` expanded and
// made absolute; and with links resolved), the base folder only for a glob.
struct granted_path {
    std::string list;   // "allowRead" or "allowWrite"
    std::string entry;  // as written in the config
    std::vector<std::filesystem::path> forms;
    bool glob = false;  // the entry is a pattern: it may match anything below its base
};

struct protected_floor {
    std::vector<std::filesystem::path> unreadable;  // each in every form it may take on disk
    // Also what the host runs or reads later (PATH folders, ~/.local/bin, ~/.config, shell
    // start-up files, ...): a kernel that could write there would get code run on the host.
    std::vector<std::filesystem::path> unwritable;
    std::vector<std::filesystem::path> writable;  // what ipybox itself lets the kernel write
};

// Why `grant` would lift the floor, or "" when it does not:
//   - allowRead: a form is, or lies inside, an unreadable path (srt lets an allowRead win over a
//     broader denyRead); a glob whose base holds an unreadable path could match it.
//   - allowWrite: a form is, or lies inside, an unreadable or unwritable path; or it holds one
//     and is not itself inside ipybox's writable set (where ipybox's own denies stand). A glob
//     counts as holding everything below its base.
std::string floor_breach(const granted_path& grant, const protected_floor& floor);

// `path` equals `folder` or lies below it (lexically; both absolute and normal).
bool within(const std::filesystem::path& path, const std::filesystem::path& folder);

}  // namespace ipybox::sandbox
