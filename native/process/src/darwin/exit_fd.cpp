#include "ipybox/process/exit_fd.hpp"

#include <fcntl.h>
#include <sys/event.h>
#include <unistd.h>

#include <cerrno>

namespace ipybox::process {

unique_fd open_exit_fd(int pid) {
    unique_fd queue(::kqueue());
    if (!queue || ::fcntl(queue.get(), F_SETFD, FD_CLOEXEC) != 0) return {};
    struct kevent change {};
    EV_SET(&change, static_cast<uintptr_t>(pid), EVFILT_PROC, EV_ADD | EV_ENABLE, NOTE_EXIT, 0,
           nullptr);
    if (::kevent(queue.get(), &change, 1, nullptr, 0, nullptr) == 0) return queue;
    if (errno != ESRCH) return {};
    // Exited already: a descriptor readable at once (end of file).
    int ends[2] = {-1, -1};
    if (::pipe(ends) != 0) return {};
    ::close(ends[1]);
    ::fcntl(ends[0], F_SETFD, FD_CLOEXEC);
    return unique_fd(ends[0]);
}

}  // namespace ipybox::process
