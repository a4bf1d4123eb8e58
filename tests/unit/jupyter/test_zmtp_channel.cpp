// A channel's reconnects against kernels that misbehave, on a clock the test drives: how often it
// connects again and how much it logs (native/jupyter/src/detail/zmtp_channel.hpp,
// reconnect_policy.hpp).
#include <doctest/doctest.h>
#include <poll.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "detail/zmtp_channel.hpp"
#include "ipybox/core/log.hpp"
#include "ipybox/core/private_directory.hpp"

using namespace ipybox::jupyter::detail;
using namespace std::chrono_literals;
using clock_type = zmtp_channel::clock;

namespace {

// A Unix socket listening where a kernel's channel would be; accepts without waiting.
struct unix_listener {
    int fd = -1;
    explicit unix_listener(const std::string& path) {
        fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        REQUIRE(fd >= 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        REQUIRE(path.size() < sizeof address.sun_path);
        std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
        REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
        REQUIRE(::listen(fd, 16) == 0);
    }
    ~unix_listener() { ::close(fd); }
    int accept_one() const { return ::accept4(fd, nullptr, nullptr, SOCK_CLOEXEC); }
};

// Lines the ipybox loggers wrote while it lived.
struct captured_log {
    std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink =
        std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(1000);
    captured_log() { ipybox::core::set_log_sink(sink); }
    ~captured_log() {
        ipybox::core::set_log_sink(std::make_shared<spdlog::sinks::stderr_sink_mt>());
    }
    std::vector<std::string> lines_with(const std::string& text) const {
        std::vector<std::string> found;
        for (auto& line : sink->last_formatted()) {
            if (line.find(text) != std::string::npos) found.push_back(line);
        }
        return found;
    }
};

// Runs `channel` against `listener` for `window` of the test's clock, a millisecond at a time:
// every connection the listener accepts gets `answer` and is closed, and the channel is driven
// until it lets go of it. Returns the connections accepted.
int drive(zmtp_channel& channel, const unix_listener& listener, const std::string& answer,
          clock_type::time_point& now, clock_type::duration window) {
    int accepted = 0;
    const auto end = now + window;
    for (; now < end; now += 1ms) {
        channel.retry();
        const int peer = listener.accept_one();
        if (peer < 0) continue;
        ++accepted;
        REQUIRE(::write(peer, answer.data(), answer.size()) == static_cast<ssize_t>(answer.size()));
        ::close(peer);
        while (channel.fd() >= 0) {
            pollfd item{channel.fd(), channel.events(), 0};
            REQUIRE(::poll(&item, 1, 10000) == 1);  // the answer and the close are there
            channel.handle(item.revents, {});
        }
    }
    return accepted;
}

// Drives `channel` while reading what it writes to `peer`, until `wanted` bytes have come.
std::string read_from_channel(zmtp_channel& channel, int peer, std::size_t wanted) {
    std::string got;
    while (got.size() < wanted) {
        REQUIRE(channel.fd() >= 0);
        pollfd items[2] = {{channel.fd(), channel.events(), 0}, {peer, POLLIN, 0}};
        REQUIRE(::poll(items, 2, 10000) > 0);
        if (items[0].revents != 0) channel.handle(items[0].revents, {});
        if (items[1].revents & POLLIN) {
            char buffer[4096];
            const auto n = ::read(peer, buffer, sizeof buffer);
            REQUIRE(n > 0);
            got.append(buffer, static_cast<std::size_t>(n));
        }
    }
    return got;
}

}  // namespace

TEST_SUITE("jupyter.zmtp_channel") {
    TEST_CASE("a kernel answering garbage gets a reconnect a second and a log line a minute") {
        ipybox::core::private_directory dir("ipybox-zc-");
        const auto path = (dir.path() / "iopub").string();
        unix_listener listener(path);
        captured_log log;
        auto now = clock_type::now();
        zmtp_channel::options options;
        options.now = [&now] { return now; };
        zmtp_channel channel("ipc://" + path, "SUB", options);
        std::string garbage = "HTTP/1.1 400 Bad Request\r\n\r\n";
        garbage.resize(64, ' ');

        const int accepted = drive(channel, listener, garbage, now, 130s);
        // Waits of 5, 10, ... 640 ms (eight attempts in 1.3 s), then one a second: 137 in all.
        // Before the backoff grew for accepted connections, one came every 5 ms: 26,000.
        CHECK(accepted >= 130);
        CHECK(accepted <= 140);
        const auto lines = log.lines_with(path);
        // The first failure at once, then one line at 60 s and one at 120 s with the count.
        REQUIRE(lines.size() == 3);
        CHECK(lines[0].find("does not speak ZMTP") != std::string::npos);
        CHECK(lines[1].find("such failures since the last line") != std::string::npos);
    }

    TEST_CASE("waits grow for accepted connections that fail, gently for refused ones") {
        reconnect_backoff backoff;
        std::vector<long> waits;
        for (int i = 0; i < 4; ++i) waits.push_back(backoff.after_refused().count());
        CHECK(waits == std::vector<long>{5, 10, 20, 20});
        waits.clear();
        for (int i = 0; i < 9; ++i) waits.push_back(backoff.after_failure().count());
        CHECK(waits == std::vector<long>{20, 40, 80, 160, 320, 640, 1000, 1000, 1000});
        // A refused connect never shortens a wait that failures grew.
        CHECK(backoff.after_refused().count() == 1000);
        backoff.healthy();
        CHECK(backoff.after_failure().count() == 5);
    }

    TEST_CASE("a run of failures is logged once a minute with its count") {
        failure_log log;
        const auto start = failure_log::clock::time_point() + 1h;
        CHECK(log.on_failure(start) == std::optional<std::size_t>(1));
        CHECK_FALSE(log.on_failure(start + 1s));
        CHECK_FALSE(log.on_failure(start + 59s));
        CHECK(log.on_failure(start + 60s) == std::optional<std::size_t>(3));
        CHECK(log.on_failure(start + 10min) == std::optional<std::size_t>(1));
    }

    TEST_CASE("a PING from the kernel is answered with a PONG that echoes its context") {
        ipybox::core::private_directory dir("ipybox-zc-");
        const auto path = (dir.path() / "shell").string();
        unix_listener listener(path);
        zmtp_channel channel("ipc://" + path, "DEALER", {});
        const int peer = listener.accept_one();  // a local connect is accepted at once
        REQUIRE(peer >= 0);
        std::string ping;  // TTL 10 s, context "ctx-1"
        zmtp_append_frame(ping, zmtp_flag_command, std::string("\x04PING\x00\x64", 7) + "ctx-1");
        const auto kernel = zmtp_greeting() + zmtp_ready("ROUTER") + ping;
        REQUIRE(::write(peer, kernel.data(), kernel.size()) == static_cast<ssize_t>(kernel.size()));
        const auto expected = zmtp_greeting() + zmtp_ready("DEALER") + zmtp_pong("ctx-1");
        CHECK(read_from_channel(channel, peer, expected.size()) == expected);
        ::close(peer);
    }
}
