#include "../parent_watch.hpp"

#include <fcntl.h>
#include <sys/event.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <thread>

#include "ipybox/core/log.hpp"

namespace ipybox::cli {

bool end_with_parent(int parent_pid) {
    if (::getppid() != parent_pid) return false;
    const int queue = ::kqueue();
    if (queue < 0) {
        core::logger("cli")->warn("cannot watch the parent process: kqueue: {}",
                                  std::strerror(errno));
        return true;
    }
    ::fcntl(queue, F_SETFD, FD_CLOEXEC);
    struct kevent change {};
    EV_SET(&change, static_cast<uintptr_t>(parent_pid), EVFILT_PROC, EV_ADD | EV_ENABLE, NOTE_EXIT,
           0, nullptr);
    // ESRCH: the parent ended between the check and the registration.
    if (::kevent(queue, &change, 1, nullptr, 0, nullptr) != 0 || ::getppid() != parent_pid) {
        ::close(queue);
        return false;
    }
    try {
        std::thread([queue] {
            struct kevent event {};
            while (::kevent(queue, nullptr, 0, &event, 1, nullptr) < 0 && errno == EINTR) {
            }
            ::kill(::getpid(), SIGTERM);
        }).detach();
    } catch (const std::exception& e) {
        ::close(queue);
        core::logger("cli")->warn("cannot watch the parent process: {}", e.what());
    }
    return true;
}

}  // namespace ipybox::cli
