#include "../beneath.hpp"

#include <fcntl.h>
#include <stdio.h>  // renameatx_np, RENAME_SWAP, RENAME_EXCL

#include <cerrno>

// Older SDK headers lack the flag; macOS 11 and later (ipybox needs 13) honour it.
#ifndef O_NOFOLLOW_ANY
#define O_NOFOLLOW_ANY 0x20000000
#endif

namespace ipybox::workspace::detail {

int open_directory_beneath(int dirfd, const char* relative) {
    // The caller passes no `..` and no absolute path, so refusing every link keeps the path
    // beneath `dirfd`, as RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS does on Linux.
    return ::openat(dirfd, relative, O_RDONLY | O_DIRECTORY | O_NOFOLLOW_ANY | O_CLOEXEC);
}

int exchange_entries(int a_dirfd, const char* a_name, int b_dirfd, const char* b_name) {
    return ::renameatx_np(a_dirfd, a_name, b_dirfd, b_name, RENAME_SWAP);
}

int rename_no_replace(int from_dirfd, const char* from_name, int to_dirfd, const char* to_name) {
    return ::renameatx_np(from_dirfd, from_name, to_dirfd, to_name, RENAME_EXCL);
}

}  // namespace ipybox::workspace::detail
