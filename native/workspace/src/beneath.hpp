#pragma once
// directory.cpp's platform layer (issue 39): what the system offers beyond POSIX openat and
// renameat for resolving below a directory, swapping entries and renaming without replacing.
//   linux/   openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), renameat2(RENAME_EXCHANGE and
//            RENAME_NOREPLACE)
//   darwin/  openat(O_NOFOLLOW_ANY) (macOS 11 and later), renameatx_np(RENAME_SWAP and
//            RENAME_EXCL)
//   posix/   none: every path is walked (component_walk.hpp), nothing is swapped, and renames
//            that must not replace are a link and an unlink (rename_by_link, every platform's
//            fallback, in link_rename.cpp)
// Thread-safe; none throws.
namespace ipybox::workspace::detail {

// Opens the directory `relative` (plain components only: no `..`, not absolute, not empty)
// below `dirfd`, close-on-exec, refusing a link at any component, in one call. Returns the
// descriptor; -1 with errno set when it failed or refused (the caller then walks the path to
// tell why); -2 when the system has no such call (the caller then walks the path).
int open_directory_beneath(int dirfd, const char* relative);

// Swaps the entries `a_name` in `a_dirfd` and `b_name` in `b_dirfd` atomically, following no
// link. Returns 0, or -1 with errno set: EINVAL, ENOSYS or ENOTSUP where the system or the file
// system cannot swap.
int exchange_entries(int a_dirfd, const char* a_name, int b_dirfd, const char* b_name);

// Renames `from_name` in `from_dirfd` to `to_name` in `to_dirfd` atomically unless an entry
// (a link included) is at `to_name`, following no link. Returns 0, or -1 with errno set: EEXIST
// when `to_name` exists; EINVAL, ENOSYS or ENOTSUP where the system or the file system cannot
// (the caller then uses rename_by_link).
int rename_no_replace(int from_dirfd, const char* from_name, int to_dirfd, const char* to_name);

// The same for anything but a directory, as POSIX can: linkat (which refuses an existing name and
// follows no link), then unlinkat of the old name. Returns 0, or -1 with errno set (EEXIST when
// `to_name` exists, EPERM for a directory on most systems). Not atomic: between the two calls
// the entry has both names; a failed unlink leaves it so and still returns 0.
int rename_by_link(int from_dirfd, const char* from_name, int to_dirfd, const char* to_name);

}  // namespace ipybox::workspace::detail
