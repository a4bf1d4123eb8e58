#include "ipybox/core/quiet_sockets.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace ipybox::core {
namespace {

// Close-on-exec, non-blocking when asked, and no SIGPIPE: -1 (the socket closed, errno kept)
// when one cannot be set.
int prepared(int fd, bool nonblocking) {
    if (fd < 0) return fd;
    const int on = 1;
    const int status = ::fcntl(fd, F_GETFL);
    const bool done =
        ::fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 &&
        (!nonblocking || (status >= 0 && ::fcntl(fd, F_SETFL, status | O_NONBLOCK) == 0)) &&
        ::setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, sizeof on) == 0;
    if (done) return fd;
    const int error = errno;
    ::close(fd);
    errno = error;
    return -1;
}

void no_sigpipe(int fd) {
    const int on = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, sizeof on);
}

}  // namespace

int quiet_socket(int domain, int type, bool nonblocking) {
    return prepared(::socket(domain, type, 0), nonblocking);
}

int quiet_socket_pair(int domain, int type, int ends[2]) {
    if (::socketpair(domain, type, 0, ends) != 0) return -1;
    if (prepared(ends[0], false) < 0 || prepared(ends[1], false) < 0) {
        const int error = errno;
        ::close(ends[0]);
        ::close(ends[1]);
        errno = error;
        return -1;
    }
    return 0;
}

ssize_t quiet_send(int fd, const void* data, std::size_t size, int flags) {
    no_sigpipe(fd);
    return ::send(fd, data, size, flags);
}

ssize_t quiet_sendmsg(int fd, const msghdr* message, int flags) {
    no_sigpipe(fd);
    return ::sendmsg(fd, message, flags);
}

}  // namespace ipybox::core
