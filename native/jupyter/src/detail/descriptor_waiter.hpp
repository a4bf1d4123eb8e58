#pragma once
// A channel's socket joined to the io_context as an Asio object: waits for it to become readable
// or writable with posix::stream_descriptor::async_wait, as STYLE.md's rule 12 asks, instead of a
// poll set mirrored into an epoll set.
//
// The channel owns its descriptor and replaces it on every reconnect: forget() must be called
// before the channel closes it (zmtp_channel::options::before_close), so that Asio stops watching
// that file while its number still names it; a number closed and reused is then assigned afresh
// by the next arm(). Waits under way when it forgets end without calling back.
//
// Thread-safety: none; everything, the callbacks included, runs on the one strand it was made
// with. Ownership: never closes the descriptor. The object the waits keep alive (`owner` of
// arm()) must own this waiter.
#include <poll.h>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/strand.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>

namespace ipybox::jupyter::detail {

class descriptor_waiter {
  public:
    using executor = boost::asio::strand<boost::asio::io_context::executor_type>;

    // `on_ready` gets POLLIN or POLLOUT when a wait for it completes.
    descriptor_waiter(executor strand, std::function<void(short)> on_ready)
        : descriptor_(std::move(strand)), on_ready_(std::move(on_ready)) {}
    ~descriptor_waiter() { forget(); }
    descriptor_waiter(const descriptor_waiter&) = delete;
    descriptor_waiter& operator=(const descriptor_waiter&) = delete;

    // Watches `fd` (-1: nothing) for `events` (POLLIN, POLLOUT): starts each wait not yet under
    // way. The waits hold `owner` until they end.
    void arm(int fd, short events, const std::shared_ptr<void>& owner);
    // Stops watching the descriptor, leaving it open.
    void forget();

  private:
    void wait(bool for_write, const std::shared_ptr<void>& owner);

    boost::asio::posix::stream_descriptor descriptor_;
    std::function<void(short)> on_ready_;
    int fd_ = -1;
    std::uint64_t generation_ = 0;  // counts forget(): a wait of an older one is stale
    bool reading_ = false;
    bool writing_ = false;
};

}  // namespace ipybox::jupyter::detail
