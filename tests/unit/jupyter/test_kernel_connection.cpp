// kernel_connection against the fake kernel: raw ZeroMQ sockets speaking our wire module.
#include <doctest/doctest.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <condition_variable>
#include <filesystem>
#include <future>
#include <mutex>
#include <thread>

#include "fake_kernel_sockets.hpp"
#include "ipybox/core/private_directory.hpp"
#include "ipybox/jupyter/kernel_connection.hpp"
#include "ipybox/jupyter/wire.hpp"

using namespace ipybox::jupyter;
using namespace std::chrono_literals;
using ipybox::testing::fake_kernel_sockets;
using ipybox::testing::send_frames;

namespace {

struct received {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<message> iopub;
    std::vector<message> shell;

    bool wait_for(std::size_t iopub_count, std::chrono::milliseconds timeout) {
        std::unique_lock lock(mutex);
        return changed.wait_for(lock, timeout, [&] { return iopub.size() >= iopub_count; });
    }
};

// The shared fake kernel with only shell and IOPub bound (no heartbeat answers).
struct fake_kernel {
    ipybox::core::private_directory dir{"ipybox-fake-"};
    fake_kernel_sockets sockets{connection_info::make_ipc(dir.path() / "k"),
                                {channel::shell, channel::iopub}};
    connection_info& info = sockets.info;

    void publish(const message& msg, const std::string& key) { sockets.publish(msg, key); }
};

message stream_message(const std::string& text) {
    message msg = make_request("stream", {{"name", "stdout"}, {"text", text}}, "fake");
    return msg;
}

// Publishes until the subscriber sees one message (ZeroMQ subscriptions take a moment).
void wait_for_subscription(fake_kernel& kernel, received& got) {
    for (int i = 0; i < 200; ++i) {
        kernel.publish(stream_message("hello"), kernel.info.key);
        if (got.wait_for(1, 20ms)) return;
    }
    FAIL("the subscriber never connected");
}

connection_handlers recording(received& got) {
    connection_handlers handlers;
    handlers.on_iopub = [&got](message&& msg) {
        std::lock_guard lock(got.mutex);
        got.iopub.push_back(std::move(msg));
        got.changed.notify_all();
    };
    handlers.on_shell = [&got](message&& msg) {
        std::lock_guard lock(got.mutex);
        got.shell.push_back(std::move(msg));
        got.changed.notify_all();
    };
    return handlers;
}

// A plain libzmq subscriber to the fake kernel's IOPub, as ipybox used to read it, once the
// kernel has seen its subscription. `max_frame` sets ZMQ_MAXMSGSIZE (-1: none).
zmq::socket_t libzmq_subscriber(zmq::context_t& context, fake_kernel& kernel, int max_frame,
                                int high_water_mark) {
    zmq::socket_t subscriber(context, zmq::socket_type::sub);
    subscriber.set(zmq::sockopt::linger, 0);
    subscriber.set(zmq::sockopt::maxmsgsize, static_cast<int64_t>(max_frame));
    subscriber.set(zmq::sockopt::rcvhwm, high_water_mark);
    subscriber.set(zmq::sockopt::subscribe, "");
    subscriber.connect(kernel.info.endpoint(channel::iopub));
    zmq::message_t subscription;
    kernel.sockets.iopub.set(zmq::sockopt::rcvtimeo, 5000);
    REQUIRE(kernel.sockets.iopub.recv(subscription));  // XPUB: the subscription arrived
    return subscriber;
}

// Frames and bytes of the first message `subscriber` receives whole that is not one of the small
// probes of wait_for_subscription (six frames, a few hundred bytes).
std::pair<std::size_t, std::size_t> receive_large(zmq::socket_t& subscriber) {
    subscriber.set(zmq::sockopt::rcvtimeo, 10000);
    while (true) {
        std::vector<zmq::message_t> parts;
        REQUIRE(zmq::recv_multipart(subscriber, std::back_inserter(parts)));
        std::size_t bytes = 0;
        for (const auto& part : parts) bytes += part.size();
        if (parts.size() > 6 || bytes > 4096) return {parts.size(), bytes};
    }
}

// Records what the connection dropped for its size.
struct drops {
    std::mutex mutex;
    std::vector<std::pair<channel, std::string>> seen;
    void attach(connection_handlers& handlers) {
        handlers.on_dropped = [this](channel which, const std::string& reason) {
            std::lock_guard lock(mutex);
            seen.emplace_back(which, reason);
        };
    }
};

// Sends a kernel_info_request on `connection`, answers it from the fake kernel and waits for
// the reply to be routed back. Returns its msg_id and the request as the kernel received it.
std::pair<std::string, message> round_trip(fake_kernel& kernel, kernel_connection& connection,
                                           received& got) {
    const auto id = connection.send(
        channel::shell, make_request("kernel_info_request", nlohmann::json::object(), "x"));
    std::vector<zmq::message_t> parts;
    kernel.sockets.shell.set(zmq::sockopt::rcvtimeo, 5000);
    REQUIRE(zmq::recv_multipart(kernel.sockets.shell, std::back_inserter(parts)));
    std::vector<std::string> frames;
    for (auto& part : parts) frames.push_back(part.to_string());
    auto request = decode(frames, signer(kernel.info.key));
    REQUIRE(request.msg);
    message reply = make_request("kernel_info_reply", {{"status", "ok"}}, "fake");
    reply.parent_header = request.msg->header;
    reply.identities = request.msg->identities;
    send_frames(kernel.sockets.shell, encode(reply, signer(kernel.info.key)));
    std::unique_lock lock(got.mutex);
    REQUIRE(got.changed.wait_for(
        lock, 5s, [&] { return !got.shell.empty() && got.shell.back().parent_msg_id() == id; }));
    return {id, std::move(*request.msg)};
}

}  // namespace

TEST_SUITE("jupyter.kernel_connection") {
    TEST_CASE("drops and counts messages with a bad or short signature, and keeps going") {
        fake_kernel kernel;
        received got;
        kernel_connection connection(kernel.info, "session", recording(got), {0ms, 3});
        wait_for_subscription(kernel, got);
        const std::size_t before = got.iopub.size();

        kernel.publish(stream_message("forged"), "another-key");
        auto frames = encode(stream_message("short"), signer(kernel.info.key));
        frames[1] = frames[1].substr(0, 10);
        send_frames(kernel.sockets.iopub, frames);
        send_frames(kernel.sockets.iopub, {"no delimiter at all"});
        kernel.publish(stream_message("genuine"), kernel.info.key);

        REQUIRE(got.wait_for(before + 1, 5s));
        std::this_thread::sleep_for(100ms);
        std::lock_guard lock(got.mutex);
        CHECK(got.iopub.size() == before + 1);
        CHECK(got.iopub.back().content["text"] == "genuine");
        CHECK(connection.dropped_messages() == 3);
    }

    TEST_CASE("sends signed requests on shell and routes replies back") {
        fake_kernel kernel;
        received got;
        kernel_connection connection(kernel.info, "session", recording(got), {0ms, 3});
        const auto [id, request] = round_trip(kernel, connection, got);
        CHECK(request.msg_id() == id);
        CHECK(request.header["session"] == "session");
        std::lock_guard lock(got.mutex);
        CHECK(got.shell[0].parent_msg_id() == id);
    }

    TEST_CASE("shell and stdin carry the session as their identity, so the kernel can route") {
        fake_kernel kernel;
        zmq::socket_t stdin_router(kernel.sockets.context, zmq::socket_type::router);
        stdin_router.set(zmq::sockopt::linger, 0);
        stdin_router.bind(kernel.info.endpoint(channel::stdin_channel));
        received got;
        kernel_connection connection(kernel.info, "session-7", recording(got), {0ms, 3});
        // The kernel's ROUTER sockets see the session's name, not one libzmq made up (five bytes
        // starting with a zero): an input_request for this session reaches this stdin socket.
        const auto [id, request] = round_trip(kernel, connection, got);
        CHECK(request.identities == std::vector<std::string>{"session-7"});
        connection.send(channel::stdin_channel,
                        make_request("input_reply", {{"value", "typed"}}, "session-7"));
        std::vector<zmq::message_t> parts;
        stdin_router.set(zmq::sockopt::rcvtimeo, 5000);
        REQUIRE(zmq::recv_multipart(stdin_router, std::back_inserter(parts)));
        CHECK(parts.front().to_string() == "session-7");
    }

    TEST_CASE(
        "messages for a kernel that does not read are bounded, and send() refuses past the bound") {
        fake_kernel kernel;  // binds no control socket: nothing there ever reads
        received got;
        connection_options options{0ms, 3};
        options.max_outgoing_bytes = 1024 * 1024;
        kernel_connection connection(kernel.info, "session", recording(got), options);
        const auto big = make_request("execute_request", {{"code", std::string(100000, 'x')}}, "s");
        int accepted = 0;
        bool refused = false;
        for (int i = 0; i < 100 && !refused; ++i) {
            try {
                connection.send(channel::control, big);
                ++accepted;
            } catch (const outgoing_queue_full& e) {
                refused = true;
                CHECK(std::string(e.what()).find("the kernel is not reading") != std::string::npos);
            }
        }
        CHECK(refused);
        CHECK(accepted <= 10);  // 100 kB each under 1 MiB
        CHECK(accepted >= 9);
        // What still fits under the bound goes: a request on shell, answered.
        round_trip(kernel, connection, got);
    }

    TEST_CASE("reports a watched file descriptor once it becomes readable") {
        fake_kernel kernel;
        received got;
        kernel_connection connection(kernel.info, "session", recording(got), {0ms, 3});
        int fds[2];
        REQUIRE(::pipe(fds) == 0);
        std::atomic<int> calls{0};
        connection.watch_fd(fds[0], [&] { ++calls; });
        REQUIRE(::write(fds[1], "x", 1) == 1);
        for (int i = 0; i < 500 && calls == 0; ++i) std::this_thread::sleep_for(10ms);
        std::this_thread::sleep_for(50ms);
        CHECK(calls == 1);
        ::close(fds[0]);
        ::close(fds[1]);
    }

    TEST_CASE("call_after runs its handler on the loop once, and never after the destructor") {
        fake_kernel kernel;
        received got;
        std::atomic<int> calls{0};
        auto connection = std::make_unique<kernel_connection>(
            kernel.info, "session", recording(got), connection_options{0ms, 3});
        connection->call_after(1ms, [&] { ++calls; });
        for (int i = 0; i < 500 && calls == 0; ++i) std::this_thread::sleep_for(10ms);
        CHECK(calls == 1);
        connection->call_after(200ms, [&] { ++calls; });
        connection.reset();
        std::this_thread::sleep_for(400ms);
        CHECK(calls == 1);
    }

    TEST_CASE("reports a lost heartbeat when nothing answers the pings") {
        fake_kernel kernel;  // binds no heartbeat socket
        received got;
        std::atomic<bool> lost{false};
        auto handlers = recording(got);
        handlers.on_heartbeat_lost = [&] { lost = true; };
        kernel_connection connection(kernel.info, "session", handlers, {20ms, 3});
        for (int i = 0; i < 500 && !lost; ++i) std::this_thread::sleep_for(10ms);
        CHECK(lost);
    }

    TEST_CASE(
        "an IOPub message over the size limit is dropped unread, said, and the next arrives") {
        fake_kernel kernel;
        zmq::context_t context(1);
        auto plain = libzmq_subscriber(context, kernel, -1, 64);
        received got;
        drops dropped;
        auto handlers = recording(got);
        dropped.attach(handlers);
        connection_options options{0ms, 3};
        options.max_iopub_message_bytes = 1024 * 1024;
        kernel_connection connection(kernel.info, "session", handlers, options);
        wait_for_subscription(kernel, got);
        const std::size_t before = got.iopub.size();

        kernel.publish(stream_message(std::string(2 << 20, 'x')), kernel.info.key);
        kernel.publish(stream_message("after"), kernel.info.key);
        REQUIRE(got.wait_for(before + 1, 5s));
        {
            std::lock_guard lock(got.mutex);
            CHECK(got.iopub.back().content["text"] == "after");
        }
        std::lock_guard lock(dropped.mutex);
        REQUIRE(dropped.seen.size() == 1);
        CHECK(dropped.seen[0].first == channel::iopub);
        CHECK(dropped.seen[0].second == "over 1048576 bytes");
        CHECK(connection.dropped_messages() == 1);
        // Control: a libzmq subscriber as ipybox had one takes the whole message in.
        CHECK(receive_large(plain).second > (2u << 20));
    }

    TEST_CASE("a message of 100,000 one-byte frames is dropped at the frame limit") {
        fake_kernel kernel;
        zmq::context_t context(1);
        // The most libzmq offers: frames of at most 1 MiB, one message queued.
        auto plain = libzmq_subscriber(context, kernel, 1 << 20, 1);
        received got;
        drops dropped;
        auto handlers = recording(got);
        dropped.attach(handlers);
        kernel_connection connection(kernel.info, "session", handlers, {0ms, 3});
        wait_for_subscription(kernel, got);
        const std::size_t before = got.iopub.size();

        std::vector<std::string> frames(100000, "x");
        send_frames(kernel.sockets.iopub, frames);
        kernel.publish(stream_message("after"), kernel.info.key);
        REQUIRE(got.wait_for(before + 1, 5s));
        {
            std::lock_guard lock(dropped.mutex);
            CHECK(dropped.seen == std::vector<std::pair<channel, std::string>>{
                                      {channel::iopub, "over 256 frames"}});
        }
        // Control: libzmq assembles the whole message before its reader sees a frame.
        CHECK(receive_large(plain).first == 100000);
    }
}

namespace {

std::size_t thread_count() {
    std::size_t count = 0;
    for ([[maybe_unused]] const auto& entry :
         std::filesystem::directory_iterator("/proc/self/task")) {
        ++count;
    }
    return count;
}

}  // namespace

TEST_SUITE("jupyter.kernel_connection on the caller's io_context") {
    TEST_CASE("any number of connections add no thread, and each works") {
        constexpr int kernels = 6;
        std::vector<std::unique_ptr<fake_kernel>> fakes;
        for (int i = 0; i < kernels; ++i) fakes.push_back(std::make_unique<fake_kernel>());
        boost::asio::io_context io;
        auto guard = boost::asio::make_work_guard(io);
        std::thread loop([&io] { io.run(); });
        const auto before = thread_count();

        std::vector<received> got(kernels);
        std::vector<std::unique_ptr<kernel_connection>> connections;
        connection_options options{0ms, 3};
        options.io = &io;
        for (int i = 0; i < kernels; ++i) {
            connections.push_back(std::make_unique<kernel_connection>(fakes[i]->info, "session",
                                                                      recording(got[i]), options));
        }
        CHECK(thread_count() == before);
        for (int i = 0; i < kernels; ++i) round_trip(*fakes[i], *connections[i], got[i]);
        for (int i = 0; i < kernels; ++i) wait_for_subscription(*fakes[i], got[i]);
        CHECK(thread_count() == before);

        connections.clear();
        // The loop goes on after them all, and lets go of every socket it had.
        std::promise<void> ran;
        boost::asio::post(io, [&ran] { ran.set_value(); });
        CHECK(ran.get_future().wait_for(5s) == std::future_status::ready);
        guard.reset();
        io.stop();
        loop.join();
    }

    TEST_CASE("messages waiting when the connection is destroyed never reach a handler") {
        // The loop is run here, by hand, so that nothing is read until the test says so.
        fake_kernel kernel;
        boost::asio::io_context io;
        connection_options options{0ms, 3};
        options.io = &io;
        received got;
        std::atomic<bool> closed{false};
        std::atomic<int> late{0};
        auto handlers = recording(got);
        handlers.on_iopub = [&closed, &late, record = handlers.on_iopub](message&& msg) {
            if (closed) ++late;
            record(std::move(msg));
        };
        auto watched =
            std::make_unique<kernel_connection>(kernel.info, "watched", handlers, options);
        for (int i = 0; i < 500 && !got.wait_for(1, 0ms); ++i) {
            kernel.publish(stream_message("hello"), kernel.info.key);
            io.run_for(10ms);
        }
        REQUIRE(got.wait_for(1, 0ms));
        // The control: a connection of its own thread sees everything published below, so the
        // watched one has it waiting on its socket too.
        received control_got;
        kernel_connection control(kernel.info, "control", recording(control_got), {0ms, 3});
        wait_for_subscription(kernel, control_got);
        const std::size_t seen = control_got.iopub.size();
        for (int i = 0; i < 20; ++i) kernel.publish(stream_message("after"), kernel.info.key);
        REQUIRE(control_got.wait_for(seen + 20, 5s));

        watched.reset();
        closed = true;
        // Everything the loop still holds runs to its end.
        for (int rounds = 0; rounds < 10; ++rounds) {
            io.restart();
            io.run_for(20ms);
        }
        CHECK(late == 0);
        CHECK(io.stopped());  // and nothing of the connection is left on it
    }
}
