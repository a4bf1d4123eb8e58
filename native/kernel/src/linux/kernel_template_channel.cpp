// The kernel template's socket I/O: messages with descriptors out, one bounded message (and its
// sender's credentials) in, each before a deadline. See kernel_template.hpp.
#include <poll.h>
#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "../kernel_template.hpp"
#include "ipybox/core/quiet_sockets.hpp"

namespace ipybox::kernel {

void kernel_template::send(const std::string& message, const std::vector<int>& descriptors) {
    iovec data{const_cast<char*>(message.data()), message.size()};
    msghdr header{};
    header.msg_iov = &data;
    header.msg_iovlen = 1;
    std::vector<char> control(CMSG_SPACE(sizeof(int) * descriptors.size()));
    if (!descriptors.empty()) {
        header.msg_control = control.data();
        header.msg_controllen = control.size();
        auto* item = CMSG_FIRSTHDR(&header);
        item->cmsg_level = SOL_SOCKET;
        item->cmsg_type = SCM_RIGHTS;
        item->cmsg_len = CMSG_LEN(sizeof(int) * descriptors.size());
        std::memcpy(CMSG_DATA(item), descriptors.data(), sizeof(int) * descriptors.size());
    }
    std::lock_guard lock(send_mutex_);
    ssize_t sent = -1;
    do {
        sent = core::quiet_sendmsg(channel_.get(), &header);
    } while (sent < 0 && errno == EINTR);
    if (sent != static_cast<ssize_t>(message.size())) {
        throw template_unavailable(
            std::string("the kernel template stopped listening: ") + std::strerror(errno), false);
    }
}

// One message from `fd` (the channel, or a child's handshake socket) before `deadline`; with
// `sender_pid`, the sender's PID as our namespace sees it, from the credentials the kernel
// attaches (SO_PASSCRED is set on the socket).
std::string kernel_template::receive(int fd, clock::time_point deadline, int* sender_pid) {
    while (true) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
        if (left.count() <= 0)
            throw kernel_start_error("the kernel template did not answer in time");
        if (abandoned_ && *abandoned_) throw kernel_start_error("the kernel session was stopped");
        pollfd item{fd, POLLIN, 0};
        const int ready =
            ::poll(&item, 1, static_cast<int>(std::min<long long>(left.count(), 100)));
        if (ready < 0 && errno != EINTR) {
            throw kernel_start_error(std::string("poll: ") + std::strerror(errno));
        }
        if (ready > 0) break;
    }
    std::string buffer(max_message, '\0');
    iovec data{buffer.data(), buffer.size()};
    std::array<char, CMSG_SPACE(sizeof(ucred))> control{};
    msghdr header{};
    header.msg_iov = &data;
    header.msg_iovlen = 1;
    header.msg_control = control.data();
    header.msg_controllen = control.size();
    ssize_t got = -1;
    do {
        got = ::recvmsg(fd, &header, MSG_CMSG_CLOEXEC);
    } while (got < 0 && errno == EINTR);
    if (got <= 0) throw template_unavailable("the kernel template (or its child) ended", false);
    for (auto* item = CMSG_FIRSTHDR(&header); item != nullptr; item = CMSG_NXTHDR(&header, item)) {
        if (item->cmsg_level == SOL_SOCKET && item->cmsg_type == SCM_CREDENTIALS && sender_pid) {
            ucred credentials{};
            std::memcpy(&credentials, CMSG_DATA(item), sizeof credentials);
            *sender_pid = credentials.pid;
        }
    }
    buffer.resize(static_cast<std::size_t>(got));
    return buffer;
}

}  // namespace ipybox::kernel
