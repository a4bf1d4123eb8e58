#include "ipybox/jupyter/kernel_connection.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "detail/zmtp_channel.hpp"
#include "ipybox/core/log.hpp"
#include "ipybox/jupyter/wire.hpp"

namespace ipybox::jupyter {

namespace {

using detail::zmtp_channel;
using detail::zmtp_limits;

// The heartbeat echoes what it is sent: a ping is a few bytes.
constexpr zmtp_limits heartbeat_limits{64 * 1024, 16};
}  // namespace

struct kernel_connection::impl {
    connection_info info;
    std::string session_id;
    connection_handlers handlers;
    connection_options options;
    signer key;
    core::json_limits json_limits;
    std::shared_ptr<spdlog::logger> log = core::logger("jupyter");

    // Declared in the order of their poll slots (poll_order).
    zmtp_channel shell;
    zmtp_channel control;
    zmtp_channel iopub;
    zmtp_channel stdin_channel;
    zmtp_channel heartbeat;
    int wake_fd = -1;

    std::mutex queue_mutex;  // guards outgoing, new_watches and stopping
    std::deque<std::pair<channel, std::vector<std::string>>> outgoing;
    std::vector<std::pair<int, std::function<void()>>> new_watches;
    bool stopping = false;

    std::vector<std::pair<int, std::function<void()>>> watches;  // I/O thread only
    std::atomic<std::size_t> dropped{0};
    std::thread thread;

    static zmtp_limits limits(std::size_t bytes, const connection_options& o) {
        return {bytes, o.max_message_frames};
    }

    impl(const connection_info& i, std::string session, connection_handlers h, connection_options o)
        : info(i),
          session_id(std::move(session)),
          handlers(std::move(h)),
          options(o),
          key(i.key),
          shell(info.endpoint(channel::shell), "DEALER", limits(o.max_reply_bytes, o)),
          control(info.endpoint(channel::control), "DEALER", limits(o.max_reply_bytes, o)),
          iopub(info.endpoint(channel::iopub), "SUB", limits(o.max_iopub_message_bytes, o)),
          stdin_channel(info.endpoint(channel::stdin_channel), "DEALER",
                        limits(o.max_reply_bytes, o)),
          heartbeat(info.endpoint(channel::heartbeat), "REQ", heartbeat_limits),
          wake_fd(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
        if (wake_fd < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
        json_limits.max_bytes = std::max(o.max_iopub_message_bytes, o.max_reply_bytes);
        json_limits.max_values = o.max_json_values;
    }

    ~impl() {
        if (wake_fd >= 0) ::close(wake_fd);
    }

    void wake() {
        const std::uint64_t one = 1;
        [[maybe_unused]] const auto written = ::write(wake_fd, &one, sizeof one);
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

    // The I/O thread must survive anything: a dead thread would leave every execution waiting.
    void run() noexcept {
        while (true) {
            try {
                loop();
                return;
            } catch (const std::exception& e) {
                log->error("kernel connection I/O error (continuing): {}", e.what());
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
        }
    }

    void loop() {
        using clock = std::chrono::steady_clock;
        const bool heartbeat_enabled = options.heartbeat_interval.count() > 0;
        auto next_ping = clock::now() + options.heartbeat_interval;
        bool ping_outstanding = false;
        int misses = 0;
        bool heartbeat_reported = false;
        const std::pair<zmtp_channel*, channel> poll_order[] = {
            {&shell, channel::shell},
            {&control, channel::control},
            {&iopub, channel::iopub},
            {&stdin_channel, channel::stdin_channel},
            {&heartbeat, channel::heartbeat}};
        const auto on_heartbeat =
            detail::zmtp_reader::callbacks{[&](std::vector<std::string>&&) {
                                               ping_outstanding = false;
                                               misses = 0;
                                           },
                                           [&](const detail::zmtp_dropped& drop) {
                                               report_dropped(channel::heartbeat, drop.reason);
                                           }};

        while (true) {
            {
                std::lock_guard lock(queue_mutex);
                if (stopping) return;
                for (auto& [which, frames] : outgoing) channel_for(which).send(frames);
                outgoing.clear();
                for (auto& watch : new_watches) watches.push_back(std::move(watch));
                new_watches.clear();
            }

            auto wait_until = clock::time_point::max();  // no deadline: wait for I/O alone
            std::vector<pollfd> items = {{wake_fd, POLLIN, 0}};
            for (const auto& [socket, which] : poll_order) {
                socket->retry();
                items.push_back({socket->fd(), socket->events(), 0});  // fd -1: skipped by poll
                if (socket->fd() < 0) wait_until = std::min(wait_until, socket->reconnect_due());
            }
            for (const auto& watch : watches) items.push_back({watch.first, POLLIN, 0});
            if (heartbeat_enabled && !heartbeat_reported) {
                wait_until = std::min(wait_until, next_ping);
            }
            int timeout = -1;
            if (wait_until != clock::time_point::max()) {
                const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    wait_until - clock::now());
                timeout = static_cast<int>(std::max<long long>(0, left.count()) + 1);
            }
            const int ready = ::poll(items.data(), items.size(), timeout);
            if (ready < 0 && errno != EINTR) {
                throw std::system_error(errno, std::generic_category(), "poll");
            }

            if (items[0].revents & POLLIN) {
                std::uint64_t count = 0;
                [[maybe_unused]] const auto got = ::read(wake_fd, &count, sizeof count);
            }
            for (std::size_t i = 0; i < std::size(poll_order); ++i) {
                const auto [socket, which] = poll_order[i];
                if (items[i + 1].fd < 0) continue;
                socket->handle(items[i + 1].revents,
                               which == channel::heartbeat ? on_heartbeat : callbacks_for(which));
            }
            const std::size_t first_watch = 1 + std::size(poll_order);
            for (std::size_t i = first_watch; i < items.size(); ++i) {
                if (!(items[i].revents & POLLIN)) continue;
                auto& watch = watches[i - first_watch];
                auto callback = std::move(watch.second);
                watch.first = -1;
                if (callback) callback();
            }
            std::erase_if(watches, [](const auto& watch) { return watch.first < 0; });

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
        }
    }
};

kernel_connection::kernel_connection(const connection_info& info, std::string session_id,
                                     connection_handlers handlers, connection_options options)
    : impl_(std::make_unique<impl>(info, std::move(session_id), std::move(handlers), options)) {
    impl_->thread = std::thread([this] { impl_->run(); });
}

kernel_connection::~kernel_connection() {
    {
        std::lock_guard lock(impl_->queue_mutex);
        impl_->stopping = true;
        impl_->wake();
    }
    if (impl_->thread.joinable()) impl_->thread.join();
}

std::string kernel_connection::send(channel which, message msg) {
    msg.header["session"] = impl_->session_id;
    std::string id = msg.msg_id();
    auto frames = encode(msg, impl_->key);
    std::lock_guard lock(impl_->queue_mutex);
    impl_->outgoing.emplace_back(which, std::move(frames));
    impl_->wake();
    return id;
}

void kernel_connection::watch_fd(int fd, std::function<void()> on_readable) {
    std::lock_guard lock(impl_->queue_mutex);
    impl_->new_watches.emplace_back(fd, std::move(on_readable));
    impl_->wake();
}

const std::string& kernel_connection::session_id() const {
    return impl_->session_id;
}
std::size_t kernel_connection::dropped_messages() const {
    return impl_->dropped.load();
}

}  // namespace ipybox::jupyter
