#include "../beneath.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>  // renameat2

namespace ipybox::workspace::detail {

int open_directory_beneath(int dirfd, const char* relative) {
    // A kernel before 5.6 (or a seccomp filter) refuses the call itself: learned once.
    static std::atomic<bool> unavailable{false};
    if (unavailable.load(std::memory_order_relaxed)) return -2;
    open_how how{};
    how.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    const long fd = ::syscall(SYS_openat2, dirfd, relative, &how, sizeof how);
    if (fd >= 0) return static_cast<int>(fd);
    if (errno == ENOSYS || errno == EINVAL || errno == E2BIG || errno == EPERM) {
        unavailable.store(true, std::memory_order_relaxed);
        return -2;
    }
    return -1;
}

int exchange_entries(int a_dirfd, const char* a_name, int b_dirfd, const char* b_name) {
    return ::renameat2(a_dirfd, a_name, b_dirfd, b_name, RENAME_EXCHANGE);
}

int rename_no_replace(int from_dirfd, const char* from_name, int to_dirfd, const char* to_name) {
    return ::renameat2(from_dirfd, from_name, to_dirfd, to_name, RENAME_NOREPLACE);
}

}  // namespace ipybox::workspace::detail
