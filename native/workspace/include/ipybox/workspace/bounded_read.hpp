#pragma once
// Host-side reads of files that kernel code may have planted: the one way ipybox reads a file
// or lists a folder of the workspace (gentools/, mcptools/, .env) and reads a file a user names
// on the command line (policies, server configurations, code).
//
// Kernel code can put anything where ipybox reads: a FIFO (an open or a read that never
// returns), a link to /dev/zero (a read that never ends), a file of gigabytes, a folder of
// millions of entries. So every read here
//   - opens with O_NONBLOCK (opening a FIFO returns at once) and, for workspace files, without
//     following a link anywhere below the trusted directory (directory.hpp's rules, O_NOFOLLOW
//     on the file itself);
//   - refuses anything fstat does not call a regular file, before reading a byte;
//   - reads at most `max_bytes` (a file that grows past it while read is refused too, so the
//     caller never works on a silently cut file);
// and a listing returns at most `max_entries` names, links and other kinds reported as such
// (never followed).
//
// Errors: a missing file gives nullopt; a link, a foreign kind or a size over the limit throws
// unreadable_file naming the path and the reason (a link in a parent folder below the trusted
// directory: unsafe_workspace_path, as directory.hpp refuses it); other failures
// std::system_error.
// Thread-safety: independent calls; nothing is shared.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ipybox/workspace/directory.hpp"

namespace ipybox::workspace {

class unreadable_file : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// The sizes ipybox reads at most, by kind of file.
// Python source of a saved action or a generated module: scanned for imports and hashed.
inline constexpr std::size_t max_source_file_bytes = 1024 * 1024;
// .env, the server registry, approval policies, server configurations, sandbox settings.
inline constexpr std::size_t max_settings_file_bytes = 4 * 1024 * 1024;
// Code given to `ipybox run -f`.
inline constexpr std::size_t max_code_file_bytes = 16 * 1024 * 1024;
// Entries of one folder a listing looks at (the rest are left out, with a warning).
inline constexpr std::size_t max_listed_entries = 10000;

// Whether the file's own name may be a link. Parent folders follow directory.hpp's rules.
enum class link_rule {
    refuse,  // workspace files: a link is refused, never followed
    follow,  // a file the user named: the user's own link is followed (regular files only)
};

// The file `relative` below `root`, no link followed on the way or at the file.
std::optional<std::string> read_regular_file(const directory& root,
                                             const std::filesystem::path& relative,
                                             std::size_t max_bytes);

// The file at `path`. Its parent folders are taken as given (the caller trusts them); the file
// itself is opened per `links`.
std::optional<std::string> read_regular_file(const std::filesystem::path& path,
                                             std::size_t max_bytes,
                                             link_rule links = link_rule::refuse);

// `file` (absolute) read through a descriptor of `trusted_root` when it lies below it (no link
// followed from the root on), else as read_regular_file(file) does. The reading twin of
// write_file_beneath.
std::optional<std::string> read_file_beneath(const std::filesystem::path& trusted_root,
                                             const std::filesystem::path& file,
                                             std::size_t max_bytes);

struct listed_entry {
    std::string name;
    directory::entry kind;  // of the entry itself: a link is `symlink`, whatever it points to
};

// The entries of `folder` (no "." or ".."): the first `max_entries` the file system gives,
// sorted by name.
std::vector<listed_entry> list_entries(const directory& folder,
                                       std::size_t max_entries = max_listed_entries);

}  // namespace ipybox::workspace
