#pragma once
// directory.cpp's platform layer (issue 39): what the system offers beyond POSIX openat and
// renameat for resolving below a directory and swapping entries.
//   linux/   openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) and renameat2(RENAME_EXCHANGE)
//   darwin/  openat(O_NOFOLLOW_ANY) (macOS 11 and later) and renameatx_np(RENAME_SWAP)
//   posix/   neither: every path is walked (component_walk.hpp) and nothing is swapped
// Thread-safe; neither throws.
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

}  // namespace ipybox::workspace::detail
