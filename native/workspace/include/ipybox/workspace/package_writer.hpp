#pragma once
// Writes a generated package into the workspace: `<root_dir>/<server_name>/`, atomically.
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "ipybox/codegen/generator.hpp"
#include "ipybox/workspace/directory.hpp"

namespace ipybox::workspace {

// Refusals that protect the file system: a symlinked or non-directory target, a file path that
// would leave the package directory.
class unsafe_package_path : public unsafe_workspace_path {
  public:
    using unsafe_workspace_path::unsafe_workspace_path;
};

// Replaces `root_dir/<server_name>/` with exactly `files`.
//
// `server_name` is validated again (codegen::invalid_server_name). Every file path must be
// `<server_name>/<relative path>` without `.`, `..`, empty or absolute components
// (unsafe_package_path otherwise). `root_dir` is created when missing (no `__init__.py` is put in
// it: it stays a namespace package); an existing `root_dir/<server_name>` that is a symlink or not
// a directory is refused (unsafe_package_path), never followed or deleted.
//
// The files are written into a fresh hidden directory inside `root_dir` first, which then takes
// the place of the old package in one atomic exchange (rename(2) fallback: old aside, new in);
// the old package is removed afterwards. Readers see the old or the new package, never a mix.
// Nothing outside `root_dir/<server_name>/` and that temporary directory is written or deleted.
// On failure the temporary directory is removed and the old package stays in place.
//
// Every write, rename and removal goes through a descriptor of `trusted_root` (directory.hpp):
// `package_root` is `root_dir` relative to it, and a link anywhere on the way (`mcptools`
// itself, `mcptools/<server>`) is refused with unsafe_workspace_path naming it.
//
// Returns the package directory. Throws std::filesystem::filesystem_error / std::system_error
// on I/O errors. Not safe to call concurrently for the same server (the last writer wins, a
// racing writer may fail); different servers are independent.
std::filesystem::path write_generated_package(const directory& trusted_root,
                                              const std::filesystem::path& package_root,
                                              std::string_view server_name,
                                              const std::vector<codegen::generated_file>& files);
// The same with `root_dir` itself as the trusted root (a folder the user named).
std::filesystem::path write_generated_package(const std::filesystem::path& root_dir,
                                              std::string_view server_name,
                                              const std::vector<codegen::generated_file>& files);

}  // namespace ipybox::workspace
