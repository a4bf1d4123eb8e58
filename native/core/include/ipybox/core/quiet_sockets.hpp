#pragma once
// Sockets made and written the way every platform allows (issue 39's platform layer):
//  * made close-on-exec (and non-blocking when asked) in the one call on Linux (SOCK_CLOEXEC),
//    with fcntl(2) right after on Darwin, which has no such flags. No descriptor leaks through
//    the gap there: ipybox starts processes only through process::spawn, whose child marks every
//    descriptor close-on-exec before it runs anything;
//  * written without ever raising SIGPIPE when the peer has gone: MSG_NOSIGNAL on Linux,
//    SO_NOSIGPIPE set on the socket when it is made on Darwin. A socket not made here gets
//    SO_NOSIGPIPE at its first quiet send on Darwin.
// Each returns what the system call does (-1 with errno on failure).
#include <sys/socket.h>
#include <sys/types.h>

#include <cstddef>

namespace ipybox::core {

int quiet_socket(int domain, int type, bool nonblocking = false);
int quiet_socket_pair(int domain, int type, int ends[2]);
// `flags` as for send(2) (MSG_DONTWAIT, ...).
ssize_t quiet_send(int fd, const void* data, std::size_t size, int flags = 0);
ssize_t quiet_sendmsg(int fd, const msghdr* message, int flags = 0);

}  // namespace ipybox::core
