#include "descriptor_waiter.hpp"

namespace ipybox::jupyter::detail {

void descriptor_waiter::arm(int fd, short events, const std::shared_ptr<void>& owner) {
    if (fd != fd_) {
        forget();
        if (fd < 0) return;
        descriptor_.assign(fd);
        fd_ = fd;
    }
    if (fd_ < 0) return;
    if ((events & POLLIN) && !reading_) wait(false, owner);
    if ((events & POLLOUT) && !writing_) wait(true, owner);
}

void descriptor_waiter::forget() {
    if (fd_ < 0) return;
    // release() cancels the waits under way (they end with operation_aborted) and leaves the
    // descriptor open for its owner to close.
    descriptor_.release();
    fd_ = -1;
    ++generation_;
    reading_ = false;
    writing_ = false;
}

void descriptor_waiter::wait(bool for_write, const std::shared_ptr<void>& owner) {
    (for_write ? writing_ : reading_) = true;
    const auto kind = for_write ? boost::asio::posix::stream_descriptor::wait_write
                                : boost::asio::posix::stream_descriptor::wait_read;
    descriptor_.async_wait(kind, [this, owner, for_write, generation = generation_](
                                     const boost::system::error_code& error) {
        if (generation != generation_) return;  // a wait for a descriptor forgotten since
        (for_write ? writing_ : reading_) = false;
        if (!error) on_ready_(for_write ? POLLOUT : POLLIN);
    });
}

}  // namespace ipybox::jupyter::detail
