#pragma once
// Where the host-side server registry of a workspace lives (app/server_registry.hpp keeps it):
// $XDG_STATE_HOME/ipybox/workspaces/<name>.json, else under ~/.local/state.
//
// The name is the SHA-256 of the workspace's canonical path, so that every build of ipybox, with
// any standard library, finds the same file. Releases before it named the file after
// std::hash of the path (which no standard promises to keep); registry_file moves such a file to
// the new name once, the first time it is asked for that workspace.
#include <filesystem>
#include <string>

#include "ipybox/process/environment.hpp"

namespace ipybox::cli {

// The key the name is derived from: the workspace's absolute path, links resolved as far as the
// path exists, without `.`, `..` or a trailing separator (std::filesystem::weakly_canonical).
std::string registry_key(const std::filesystem::path& workspace);

// sha256_hex(registry_key(workspace)) + ".json".
std::string registry_file_name(const std::filesystem::path& workspace);

// The name before: std::hash of workspace.string() (the path as given), in hex, + ".json".
std::string legacy_registry_file_name(const std::filesystem::path& workspace);

// Moves `directory`/`legacy_name` to `directory`/`name` when the first is a regular file and
// the second does not exist (workspace::directory::rename_no_replace: atomic where the system
// can, else a link and an unlink): a registry written meanwhile under the new name is never
// replaced. Follows no link at either name: a link or anything else that is not a regular file
// at the legacy name stays where it is. Both names are looked up in one opened directory.
// Returns whether the file moved; failures (no such directory, no permission) are `false`,
// never thrown.
bool migrate_registry_file(const std::filesystem::path& directory, const std::string& legacy_name,
                           const std::string& name);

// The registry file of `workspace` (empty without XDG_STATE_HOME and HOME), after moving a
// registry under its legacy name there (migrate_registry_file, said in the log when it moves).
std::filesystem::path registry_file(const process::environment_map& environment,
                                    const std::filesystem::path& workspace);

}  // namespace ipybox::cli
