#include <fcntl.h>
#include <unistd.h>

#include "beneath.hpp"

namespace ipybox::workspace::detail {

int rename_by_link(int from_dirfd, const char* from_name, int to_dirfd, const char* to_name) {
    // No AT_SYMLINK_FOLLOW: a link at `from_name` gets a second name as the link it is.
    if (::linkat(from_dirfd, from_name, to_dirfd, to_name, 0) != 0) return -1;
    ::unlinkat(from_dirfd, from_name, 0);
    return 0;
}

}  // namespace ipybox::workspace::detail
