#pragma once
// An epoll set kept equal to a poll set, so that an event loop that can wait on one descriptor
// (an Asio io_context) wakes when any descriptor of the poll set is ready. Level-triggered, like
// poll: what a pass left unread wakes the loop again.
//
// mirror() is called after every pass with the poll set the next pass will use; descriptors
// that left the set are removed, and every one in it is modified or, when the set has no entry
// for that file (a descriptor number closed and reused meanwhile), added again.
// Linux only (epoll). Thread-safety: none; one owner.
#include <poll.h>

#include <map>
#include <vector>

namespace ipybox::jupyter::detail {

class epoll_mirror {
  public:
    epoll_mirror();  // throws std::system_error when no epoll set can be made
    ~epoll_mirror();
    epoll_mirror(const epoll_mirror&) = delete;
    epoll_mirror& operator=(const epoll_mirror&) = delete;

    int fd() const { return fd_; }
    // Entries with fd < 0 are skipped, as poll skips them; POLLIN and POLLOUT are watched.
    void mirror(const std::vector<pollfd>& items);

  private:
    int fd_ = -1;
    std::map<int, unsigned> registered_;  // descriptor -> epoll events
};

}  // namespace ipybox::jupyter::detail
