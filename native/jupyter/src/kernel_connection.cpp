#include "ipybox/jupyter/kernel_connection.hpp"

#include <atomic>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "ipybox/core/log.hpp"
#include "ipybox/jupyter/wire.hpp"

namespace ipybox::jupyter {

namespace {

constexpr int iopub_receive_high_water_mark = 64;

constexpr const char* wake_endpoint_prefix = "inproc://ipybox-wake-";

void configure(zmq::socket_t& socket) {
    socket.set(zmq::sockopt::linger, 0);
    // The kernel binds after we connect; retry quickly so readiness is not delayed by backoff.
    socket.set(zmq::sockopt::reconnect_ivl, 10);
    socket.set(zmq::sockopt::reconnect_ivl_max, 100);
}

}  // namespace

struct kernel_connection::impl {
    connection_info info;
    std::string session_id;
    connection_handlers handlers;
    connection_options options;
    signer key;
    std::shared_ptr<spdlog::logger> log = core::logger("jupyter");

    zmq::context_t context{1};
    zmq::socket_t shell{context, zmq::socket_type::dealer};
    zmq::socket_t control{context, zmq::socket_type::dealer};
    zmq::socket_t stdin_socket{context, zmq::socket_type::dealer};
    zmq::socket_t iopub{context, zmq::socket_type::sub};
    zmq::socket_t heartbeat{context, zmq::socket_type::req};
    zmq::socket_t wake_reader{context, zmq::socket_type::pair};
    zmq::socket_t wake_writer{context, zmq::socket_type::pair};

    std::mutex queue_mutex;  // guards outgoing, watches, stopping and wake_writer
    std::deque<std::pair<channel, std::vector<std::string>>> outgoing;
    std::vector<std::pair<int, std::function<void()>>> new_watches;
    bool stopping = false;

    std::vector<std::pair<int, std::function<void()>>> watches;  // I/O thread only
    std::atomic<std::size_t> dropped{0};
    std::thread thread;

    impl(const connection_info& i, std::string session, connection_handlers h, connection_options o)
        : info(i), session_id(std::move(session)), handlers(std::move(h)), options(o), key(i.key) {
        for (auto* socket : {&shell, &control, &stdin_socket, &iopub, &heartbeat})
            configure(*socket);
        iopub.set(zmq::sockopt::subscribe, "");
        // What waits here for our I/O thread is bounded (the kernel sends output in pieces of
        // about 64 KiB); beyond it, messages wait in the kernel's own send queue.
        iopub.set(zmq::sockopt::rcvhwm, iopub_receive_high_water_mark);
        // Let a heartbeat be re-sent after a missed reply instead of wedging the REQ socket.
        heartbeat.set(zmq::sockopt::req_relaxed, 1);
        heartbeat.set(zmq::sockopt::req_correlate, 1);
        const std::string wake = wake_endpoint_prefix + session_id;
        wake_reader.bind(wake);
        wake_writer.connect(wake);
        shell.connect(info.endpoint(channel::shell));
        control.connect(info.endpoint(channel::control));
        stdin_socket.connect(info.endpoint(channel::stdin_channel));
        iopub.connect(info.endpoint(channel::iopub));
        heartbeat.connect(info.endpoint(channel::heartbeat));
    }

    void wake() {
        // Caller holds queue_mutex. A full pipe means a wake-up is already pending.
        wake_writer.send(zmq::buffer("w", 1), zmq::send_flags::dontwait);
    }

    zmq::socket_t& socket_for(channel which) {
        switch (which) {
            case channel::control:
                return control;
            case channel::stdin_channel:
                return stdin_socket;
            default:
                return shell;
        }
    }

    void deliver(channel which, std::vector<zmq::message_t>& parts) {
        std::vector<std::string> frames;
        frames.reserve(parts.size());
        for (auto& part : parts) frames.emplace_back(part.to_string());
        auto decoded = decode(std::move(frames), key);
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

        while (true) {
            std::deque<std::pair<channel, std::vector<std::string>>> to_send;
            {
                std::lock_guard lock(queue_mutex);
                if (stopping) return;
                to_send.swap(outgoing);
                for (auto& watch : new_watches) watches.push_back(std::move(watch));
                new_watches.clear();
            }
            for (auto& [which, frames] : to_send) {
                auto& socket = socket_for(which);
                for (std::size_t i = 0; i < frames.size(); ++i) {
                    const auto flags =
                        i + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none;
                    socket.send(zmq::buffer(frames[i]), flags);
                }
            }

            std::vector<zmq::pollitem_t> items = {
                {wake_reader.handle(), 0, ZMQ_POLLIN, 0},  {shell.handle(), 0, ZMQ_POLLIN, 0},
                {control.handle(), 0, ZMQ_POLLIN, 0},      {iopub.handle(), 0, ZMQ_POLLIN, 0},
                {stdin_socket.handle(), 0, ZMQ_POLLIN, 0}, {heartbeat.handle(), 0, ZMQ_POLLIN, 0}};
            for (const auto& watch : watches)
                items.push_back({nullptr, watch.first, ZMQ_POLLIN, 0});

            auto timeout = std::chrono::milliseconds(-1);
            if (heartbeat_enabled && !heartbeat_reported) {
                timeout = std::max(std::chrono::milliseconds(0),
                                   std::chrono::duration_cast<std::chrono::milliseconds>(
                                       next_ping - clock::now()));
            }
            zmq::poll(items.data(), items.size(), timeout);

            if (items[0].revents & ZMQ_POLLIN) {
                zmq::message_t drain;
                while (wake_reader.recv(drain, zmq::recv_flags::dontwait)) {
                }
            }
            const std::pair<std::size_t, channel> readable[] = {{1, channel::shell},
                                                                {2, channel::control},
                                                                {3, channel::iopub},
                                                                {4, channel::stdin_channel}};
            for (const auto& [index, which] : readable) {
                if (!(items[index].revents & ZMQ_POLLIN)) continue;
                auto& socket = which == channel::iopub ? iopub : socket_for(which);
                // Drain what is there now, but bounded so one busy channel cannot starve others.
                for (int budget = 0; budget < 64; ++budget) {
                    std::vector<zmq::message_t> parts;
                    if (!zmq::recv_multipart(socket, std::back_inserter(parts),
                                             zmq::recv_flags::dontwait)) {
                        break;
                    }
                    deliver(which, parts);
                }
            }
            if (items[5].revents & ZMQ_POLLIN) {
                // One reply per ping: a REQ socket refuses a second recv before the next send.
                zmq::message_t echo;
                if (heartbeat.recv(echo, zmq::recv_flags::dontwait)) ping_outstanding = false;
                misses = 0;
            }
            for (std::size_t i = 6; i < items.size(); ++i) {
                if (!(items[i].revents & ZMQ_POLLIN)) continue;
                auto& watch = watches[i - 6];
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
                } else {
                    try {
                        heartbeat.send(zmq::buffer("ping", 4), zmq::send_flags::dontwait);
                        ping_outstanding = true;
                    } catch (const zmq::error_t& e) {
                        log->debug("heartbeat ping not sent: {}", e.what());
                    }
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
