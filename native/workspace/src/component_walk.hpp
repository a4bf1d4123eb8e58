#pragma once
// Resolving a directory below a trusted one without following links, for directory.cpp.
//
// walk_beneath is the resolution every platform has (POSIX openat): one component at a time with
// openat(O_NOFOLLOW | O_DIRECTORY), so a link, a non-directory or anything else at any component
// is refused before anything below it is touched. The platform layer (beneath.hpp) may resolve
// the whole path in one call first; on any refusal the walk runs to name the component to blame.
#include <fcntl.h>

#include <filesystem>
#include <string>
#include <vector>

namespace ipybox::workspace::detail {

// How every directory below the trusted one is opened: never through a link at its own name.
inline constexpr int directory_flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

// Throws unsafe_workspace_path: `path` is refused for `why`.
[[noreturn]] void refuse(const std::filesystem::path& path, const char* why);
// Throws std::system_error(error) saying `what` failed on `path`.
[[noreturn]] void fail(int error, const std::string& what, const std::filesystem::path& path);

// Opening `name` in `dirfd` as a directory failed with `error`: throws unsafe_workspace_path
// when `name` is a link or not a directory, else std::system_error(error). `shown` is its path.
[[noreturn]] void fail_open(int dirfd, const std::string& name, int error,
                            const std::filesystem::path& shown);

// The plain components of `relative`: `.` skipped; `..` and absolute paths refused.
std::vector<std::string> components(const std::filesystem::path& relative);

// Opens the directory `parts` below `dirfd` (close-on-exec), never following a link; with
// `create`, makes missing components (mode 0755). `shown` is `dirfd`'s path, for messages.
// Returns an owned descriptor. Throws unsafe_workspace_path for a link or a non-directory on the
// way, std::system_error for other failures (ENOENT for a missing component without `create`).
int walk_beneath(int dirfd, const std::vector<std::string>& parts,
                 const std::filesystem::path& shown, bool create);

}  // namespace ipybox::workspace::detail
