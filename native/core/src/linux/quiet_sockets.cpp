#include "ipybox/core/quiet_sockets.hpp"

namespace ipybox::core {

int quiet_socket(int domain, int type, bool nonblocking) {
    return ::socket(domain, type | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0), 0);
}

int quiet_socket_pair(int domain, int type, int ends[2]) {
    return ::socketpair(domain, type | SOCK_CLOEXEC, 0, ends);
}

ssize_t quiet_send(int fd, const void* data, std::size_t size, int flags) {
    return ::send(fd, data, size, flags | MSG_NOSIGNAL);
}

ssize_t quiet_sendmsg(int fd, const msghdr* message, int flags) {
    return ::sendmsg(fd, message, flags | MSG_NOSIGNAL);
}

}  // namespace ipybox::core
