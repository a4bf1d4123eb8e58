#include "ipybox/jupyter/kernel_connection.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <memory>

#include "detail/kernel_connection_impl.hpp"

namespace ipybox::jupyter {

kernel_connection::kernel_connection(const connection_info& info, std::string session_id,
                                     connection_handlers handlers, connection_options options) {
    std::unique_ptr<asio::io_context> own_io;
    auto* io = options.io;
    if (io == nullptr) {
        own_io = std::make_unique<asio::io_context>(1);
        io = own_io.get();
    }
    impl_ = std::make_shared<impl>(*io, info, std::move(session_id), std::move(handlers), options);
    impl_->wake();
    if (own_io) {
        impl_->own_io = std::move(own_io);
        impl_->own_thread = std::thread([state = impl_.get()] { state->own_io->run(); });
    }
}

kernel_connection::~kernel_connection() {
    {
        std::lock_guard lock(impl_->step_mutex);  // a pass under way ends first
        impl_->stopped = true;
    }
    if (impl_->own_io) {
        impl_->own_io->stop();
        impl_->own_thread.join();
        // The waits still queued hold the state: end them here, so that it goes with impl_.
        impl_->cancel_later();
        impl_->end_waits();
        impl_->own_io->restart();
        impl_->own_io->poll();
        return;
    }
    // On the caller's loop: the waits end there, and take the last references to the state
    // (the sockets) with them.
    asio::post(impl_->strand, [state = impl_] {
        state->cancel_later();
        state->end_waits();
    });
}

std::string kernel_connection::send(channel which, message msg) {
    msg.header["session"] = impl_->session_id;
    std::string id = msg.msg_id();
    auto frames = encode(msg, impl_->key);
    std::size_t bytes = 0;
    for (const auto& frame : frames) bytes += frame.size();
    std::lock_guard lock(impl_->queue_mutex);
    // What waits in the channels was counted at the end of the last pass and has only shrunk
    // since (a pass takes this lock to add to it), so the bound holds.
    const auto waiting = impl_->outgoing_bytes + impl_->channel_bytes;
    if (bytes >
        impl_->options.max_outgoing_bytes - std::min(waiting, impl_->options.max_outgoing_bytes)) {
        throw outgoing_queue_full("the kernel is not reading: " + std::to_string(waiting) +
                                  " bytes of messages wait for it, and " + to_string(which) +
                                  " cannot take " + std::to_string(bytes) + " more (limit " +
                                  std::to_string(impl_->options.max_outgoing_bytes) + ")");
    }
    impl_->outgoing_bytes += bytes;
    impl_->outgoing.emplace_back(which, std::move(frames));
    impl_->wake();
    return id;
}

void kernel_connection::watch_fd(int fd, std::function<void()> on_readable) {
    std::lock_guard lock(impl_->queue_mutex);
    impl_->new_watches.emplace_back(fd, std::move(on_readable));
    impl_->wake();
}

void kernel_connection::call_after(std::chrono::milliseconds delay, std::function<void()> handler) {
    asio::post(impl_->strand, [state = impl_, delay, handler = std::move(handler)]() mutable {
        {
            std::lock_guard lock(state->step_mutex);
            if (state->stopped) return;  // the destructor has run or is running
        }
        auto pending = std::make_shared<asio::steady_timer>(state->strand, delay);
        state->later.erase(std::remove_if(state->later.begin(), state->later.end(),
                                          [](const auto& entry) { return entry.expired(); }),
                           state->later.end());
        state->later.push_back(pending);
        pending->async_wait(
            [state, pending, handler = std::move(handler)](const boost::system::error_code& error) {
                if (error) return;
                // Under step_mutex, as a pass's handlers: none runs once the destructor returned.
                std::lock_guard lock(state->step_mutex);
                if (!state->stopped) handler();
            });
    });
}

const std::string& kernel_connection::session_id() const {
    return impl_->session_id;
}
std::size_t kernel_connection::dropped_messages() const {
    return impl_->dropped.load();
}

}  // namespace ipybox::jupyter
