#include "epoll_mirror.hpp"

#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace ipybox::jupyter::detail {
namespace {

unsigned epoll_events(short poll_events) {
    unsigned events = 0;
    if (poll_events & POLLIN) events |= EPOLLIN;
    if (poll_events & POLLOUT) events |= EPOLLOUT;
    return events;
}

bool control(int set, int operation, int fd, unsigned events) {
    epoll_event event{};
    event.events = events;
    event.data.fd = fd;
    return ::epoll_ctl(set, operation, fd, &event) == 0;
}

}  // namespace

epoll_mirror::epoll_mirror() : fd_(::epoll_create1(EPOLL_CLOEXEC)) {
    if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "epoll_create1");
}

epoll_mirror::~epoll_mirror() {
    ::close(fd_);
}

void epoll_mirror::mirror(const std::vector<pollfd>& items) {
    std::map<int, unsigned> wanted;
    for (const auto& item : items) {
        if (item.fd >= 0) wanted[item.fd] |= epoll_events(item.events);
    }
    for (const auto& [fd, events] : registered_) {
        // A closed descriptor left the set by itself; EBADF or ENOENT are as good as done.
        if (!wanted.contains(fd)) control(fd_, EPOLL_CTL_DEL, fd, 0);
    }
    // Modify first: a number that was closed and reused is not in the set under its new file,
    // and ENOENT says so; adding it then watches the new file.
    for (const auto& [fd, events] : wanted) {
        if (control(fd_, EPOLL_CTL_MOD, fd, events)) continue;
        if (errno == ENOENT && control(fd_, EPOLL_CTL_ADD, fd, events)) continue;
        if (errno == EEXIST) control(fd_, EPOLL_CTL_MOD, fd, events);
    }
    registered_ = std::move(wanted);
}

}  // namespace ipybox::jupyter::detail
