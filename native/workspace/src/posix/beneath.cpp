#include "../beneath.hpp"

#include <cerrno>

namespace ipybox::workspace::detail {

// POSIX has neither call: every path is walked a component at a time (component_walk.hpp), and
// callers of exchange fall back on their rename (directory.hpp says false).
int open_directory_beneath(int /*dirfd*/, const char* /*relative*/) {
    return -2;
}

int exchange_entries(int /*a_dirfd*/, const char* /*a_name*/, int /*b_dirfd*/,
                     const char* /*b_name*/) {
    errno = ENOTSUP;
    return -1;
}

}  // namespace ipybox::workspace::detail
