#include "../beneath.hpp"

#include <cerrno>

namespace ipybox::workspace::detail {

// POSIX has none of these calls: every path is walked a component at a time (component_walk.hpp),
// callers of exchange fall back on their rename (directory.hpp says false), and renames that
// must not replace are done by rename_by_link.
int open_directory_beneath(int /*dirfd*/, const char* /*relative*/) {
    return -2;
}

int exchange_entries(int /*a_dirfd*/, const char* /*a_name*/, int /*b_dirfd*/,
                     const char* /*b_name*/) {
    errno = ENOTSUP;
    return -1;
}

int rename_no_replace(int /*from_dirfd*/, const char* /*from_name*/, int /*to_dirfd*/,
                      const char* /*to_name*/) {
    errno = ENOTSUP;
    return -1;
}

}  // namespace ipybox::workspace::detail
