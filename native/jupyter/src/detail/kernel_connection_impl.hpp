#pragma once
// The state behind jupyter::kernel_connection (private to the jupyter module): the five ZMTP
// channels on one strand, the heartbeat, reconnection and the handlers' queue. Only
// kernel_connection.cpp includes it; it is apart so that the public methods read on their own.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <deque>
#include <list>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "descriptor_waiter.hpp"
#include "ipybox/core/log.hpp"
#include "ipybox/jupyter/kernel_connection.hpp"
#include "ipybox/jupyter/wire.hpp"
#include "zmtp_channel.hpp"

namespace ipybox::jupyter {

namespace asio = boost::asio;
using detail::zmtp_channel;
using detail::zmtp_limits;

namespace detail {
// The heartbeat echoes what it is sent: a ping is a few bytes.
inline constexpr zmtp_limits heartbeat_limits{64 * 1024, 16};
}  // namespace detail

struct kernel_connection::impl : std::enable_shared_from_this<impl> {
    using clock = std::chrono::steady_clock;

    connection_info info;
    std::string session_id;
    connection_handlers handlers;
    connection_options options;
    signer key;
    core::json_limits json_limits;
    std::shared_ptr<spdlog::logger> log = core::logger("jupyter");

    // On the strand: each channel's socket as Asio waits on it, in channel_slots' order. Declared
    // before the channels, whose before_close reaches them from their constructors on; emptied
    // by the destructor before the channels close their sockets.
    std::array<std::unique_ptr<detail::descriptor_waiter>, 5> waiters;
    // Declared in the order of their slots (channel_slots).
    zmtp_channel shell;
    zmtp_channel control;
    zmtp_channel iopub;
    zmtp_channel stdin_channel;
    zmtp_channel heartbeat;

    std::mutex queue_mutex;  // guards the four below (filled from any thread)
    std::deque<std::pair<channel, std::vector<std::string>>> outgoing;
    std::size_t outgoing_bytes = 0;  // of `outgoing`'s frames
    std::size_t channel_bytes = 0;   // queued in the channels, as of the last pass
    std::vector<std::pair<int, std::function<void()>>> new_watches;

    std::atomic<std::size_t> dropped{0};

    // The loop's own state: touched only by passes (run_step), one at a time under step_mutex.
    std::mutex step_mutex;
    bool stopped = false;  // set by the destructor: no pass runs, no handler is called after it
    clock::time_point next_ping;
    bool ping_outstanding = false;
    int misses = 0;
    bool heartbeat_reported = false;

    // Where the waiting happens: the caller's io_context, or one of the connection's own run by
    // a thread of its own (the only thread a connection may have).
    std::unique_ptr<asio::io_context> own_io;
    std::thread own_thread;
    asio::strand<asio::io_context::executor_type> strand;
    asio::steady_timer timer;
    // The timers of call_after() still pending, for the destructor to cancel (on the strand).
    std::vector<std::weak_ptr<asio::steady_timer>> later;
    // On the strand: the watched descriptors (dups Asio owns).
    std::list<std::unique_ptr<asio::posix::stream_descriptor>> watches;

    void cancel_later() {
        for (const auto& entry : later) {
            if (auto pending = entry.lock()) pending->cancel();
        }
        later.clear();
    }

    zmtp_channel::options limits(std::size_t slot, std::size_t bytes, std::size_t frames,
                                 std::string identity = {}) {
        zmtp_channel::options channel;
        channel.limits = {bytes, frames};
        channel.identity = std::move(identity);
        // Asio lets go of a socket before the channel closes it (descriptor_waiter.hpp).
        channel.before_close = [this, slot](int) {
            if (waiters[slot]) waiters[slot]->forget();
        };
        return channel;
    }

    impl(asio::io_context& io, const connection_info& i, std::string session, connection_handlers h,
         connection_options o)
        : info(i),
          session_id(std::move(session)),
          handlers(std::move(h)),
          options(o),
          key(i.key),
          // Shell, control and stdin announce the session as their identity, as jupyter_client
          // does: the kernel's ROUTER sockets then route by it, and an input request for the
          // session that sent an execute_request on shell reaches its stdin socket.
          shell(info.endpoint(channel::shell), "DEALER",
                limits(0, o.max_reply_bytes, o.max_message_frames, session_id)),
          control(info.endpoint(channel::control), "DEALER",
                  limits(1, o.max_reply_bytes, o.max_message_frames, session_id)),
          iopub(info.endpoint(channel::iopub), "SUB",
                limits(2, o.max_iopub_message_bytes, o.max_message_frames)),
          stdin_channel(info.endpoint(channel::stdin_channel), "DEALER",
                        limits(3, o.max_reply_bytes, o.max_message_frames, session_id)),
          heartbeat(info.endpoint(channel::heartbeat), "REQ",
                    limits(4, detail::heartbeat_limits.max_message_bytes,
                           detail::heartbeat_limits.max_frames)),
          next_ping(clock::now() + o.heartbeat_interval),
          strand(asio::make_strand(io)),
          timer(strand) {
        for (std::size_t slot = 0; slot < waiters.size(); ++slot) {
            waiters[slot] = std::make_unique<detail::descriptor_waiter>(
                strand, [this, slot](short revents) { run_step(slot, revents); });
        }
        json_limits.max_bytes = std::max(o.max_iopub_message_bytes, o.max_reply_bytes);
        json_limits.max_values = o.max_json_values;
    }

    ~impl() {
        // Asio lets go of the sockets first; the channels, destroyed after, close them.
        for (auto& waiter : waiters) waiter.reset();
    }

    static constexpr std::size_t no_slot = static_cast<std::size_t>(-1);

    // Ends every wait of the connection's (their handlers hold the state); on the strand.
    void end_waits() {
        timer.cancel();
        for (auto& waiter : waiters) waiter->forget();
        for (auto& descriptor : watches) descriptor->cancel();
    }

    // A pass on the strand, soon: after start, a send or a new watch.
    void wake() {
        asio::post(strand, [self = shared_from_this()] { self->run_step(); });
    }

    zmtp_channel& channel_for(channel which) {
        switch (which) {
            case channel::control:
                return control;
            case channel::stdin_channel:
                return stdin_channel;
            case channel::iopub:
                return iopub;
            case channel::heartbeat:
                return heartbeat;
            default:
                return shell;
        }
    }

    void deliver(channel which, std::vector<std::string>&& frames) {
        auto decoded = decode(std::move(frames), key, json_limits);
        if (!decoded.msg) {
            ++dropped;
            log->warn("dropped a message on {}: {} ({})", to_string(which),
                      to_string(decoded.error), decoded.detail);
            return;
        }
        const auto& handler = which == channel::shell     ? handlers.on_shell
                              : which == channel::control ? handlers.on_control
                              : which == channel::iopub   ? handlers.on_iopub
                                                          : handlers.on_stdin;
        if (!handler) return;
        try {
            handler(std::move(*decoded.msg));
        } catch (const std::exception& e) {
            log->error("handler for a {} message failed: {}", to_string(which), e.what());
        }
    }

    void report_dropped(channel which, const std::string& reason) {
        ++dropped;
        log->warn("dropped a message from the kernel on {} unread: {}", to_string(which), reason);
        if (!handlers.on_dropped) return;
        try {
            handlers.on_dropped(which, reason);
        } catch (const std::exception& e) {
            log->error("handler for a dropped {} message failed: {}", to_string(which), e.what());
        }
    }

    detail::zmtp_reader::callbacks callbacks_for(channel which) {
        return {
            [this, which](std::vector<std::string>&& frames) { deliver(which, std::move(frames)); },
            [this, which](const detail::zmtp_dropped& drop) {
                report_dropped(which, drop.reason);
            }};
    }

    // One pass of the loop: outgoing messages, new watches, the heartbeat, reconnects, then each
    // channel's waits armed for what it wants now (descriptor_waiter). Returns when the next
    // pass is due at the latest (a reconnect, a ping), or time_point::max() when only I/O can
    // wake it.
    clock::time_point step() {
        const bool heartbeat_enabled = options.heartbeat_interval.count() > 0;
        {
            std::lock_guard lock(queue_mutex);
            for (auto& [which, frames] : outgoing) channel_for(which).send(frames);
            outgoing.clear();
            channel_bytes += std::exchange(outgoing_bytes, 0);
            for (auto& [fd, callback] : new_watches) watch(fd, std::move(callback));
            new_watches.clear();
        }

        if (heartbeat_enabled && !heartbeat_reported && clock::now() >= next_ping) {
            if (ping_outstanding && ++misses >= options.heartbeat_misses) {
                heartbeat_reported = true;
                log->warn("kernel heartbeat lost after {} missed pings", misses);
                if (handlers.on_heartbeat_lost) handlers.on_heartbeat_lost();
            } else if (heartbeat.fd() >= 0) {
                // As a REQ socket would frame it: an empty delimiter, then the ping.
                heartbeat.send({std::string(), "ping"});
                ping_outstanding = true;
            } else {
                ping_outstanding = true;  // not even connected: counts as unanswered
            }
            next_ping = clock::now() + options.heartbeat_interval;
        }

        auto due = clock::time_point::max();
        for (const auto& [socket, which] : channel_slots()) {
            socket->retry();
            if (socket->fd() < 0) due = std::min(due, socket->reconnect_due());
        }
        if (heartbeat_enabled && !heartbeat_reported) due = std::min(due, next_ping);
        {
            std::size_t queued = 0;
            for (const auto& [socket, which] : channel_slots()) queued += socket->queued_bytes();
            std::lock_guard lock(queue_mutex);
            channel_bytes = queued;
        }
        const auto order = channel_slots();
        for (std::size_t slot = 0; slot < order.size(); ++slot) {
            waiters[slot]->arm(order[slot].first->fd(), order[slot].first->events(),
                               shared_from_this());
        }
        return due;
    }

    std::array<std::pair<zmtp_channel*, channel>, 5> channel_slots() {
        return {{{&shell, channel::shell},
                 {&control, channel::control},
                 {&iopub, channel::iopub},
                 {&stdin_channel, channel::stdin_channel},
                 {&heartbeat, channel::heartbeat}}};
    }

    // Calls `on_readable` once `fd` is readable, through a duplicate Asio owns (the caller keeps
    // `fd`), unless the connection is closed first.
    void watch(int fd, std::function<void()> on_readable) {
        const int copy = ::dup(fd);
        if (copy < 0) throw std::system_error(errno, std::generic_category(), "dup");
        auto& descriptor = *watches.insert(
            watches.end(), std::make_unique<asio::posix::stream_descriptor>(strand));
        descriptor->assign(copy);
        descriptor->async_wait(
            asio::posix::stream_descriptor::wait_read,
            [self = shared_from_this(), watched = descriptor.get(),
             callback = std::move(on_readable)](const boost::system::error_code& error) {
                self->watches.remove_if([&](const auto& each) { return each.get() == watched; });
                std::unique_lock lock(self->step_mutex);
                if (error || self->stopped || !callback) return;
                callback();
            });
    }

    detail::zmtp_reader::callbacks heartbeat_callbacks() {
        return {[this](std::vector<std::string>&&) {
                    ping_outstanding = false;
                    misses = 0;
                },
                [this](const detail::zmtp_dropped& drop) {
                    report_dropped(channel::heartbeat, drop.reason);
                }};
    }

    // Runs a pass unless the connection was closed, first handling the readiness of the channel
    // in `slot` if a wait for it completed, then waits for the next: I/O on a channel (each
    // armed again by the pass, so data a pass left unread wakes it again) or the due time. A
    // pass that throws is logged and retried shortly: the loop must survive anything, or every
    // execution would be left waiting.
    void run_step(std::size_t slot = no_slot, short revents = 0) {
        std::unique_lock lock(step_mutex);
        if (stopped) return;
        auto due = clock::time_point::max();
        try {
            if (slot != no_slot) {
                const auto [socket, which] = channel_slots()[slot];
                socket->handle(revents, which == channel::heartbeat ? heartbeat_callbacks()
                                                                    : callbacks_for(which));
            }
            due = step();
        } catch (const std::exception& e) {
            log->error("kernel connection I/O error (continuing): {}", e.what());
            due = clock::now() + std::chrono::milliseconds(10);
        }
        lock.unlock();
        wait_for_next(due);
    }

    void wait_for_next(clock::time_point due) {
        auto self = shared_from_this();
        if (due == clock::time_point::max()) {
            timer.cancel();
            return;
        }
        timer.expires_at(due);
        timer.async_wait([self](const boost::system::error_code& error) {
            if (!error) self->run_step();
        });
    }
};

}  // namespace ipybox::jupyter
