// Our ZMTP reader and writer against libzmq itself, on random multipart messages: what a libzmq
// ROUTER or PUB sends, our channel delivers frame for frame, and what our channel sends, a libzmq
// ROUTER receives frame for frame. Fixed seeds; IPYBOX_FUZZ_ITERATIONS sets the number of
// messages per seed and direction for a long run locally. ipc:// only.
#include <doctest/doctest.h>
#include <poll.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "detail/zmtp_channel.hpp"
#include "ipybox/core/private_directory.hpp"
#include "zmtp_test_support.hpp"

using namespace ipybox::jupyter::detail;
using namespace std::chrono_literals;
using frames_t = std::vector<std::string>;

namespace {

// ZMQ_METADATA: in zmq.h's draft section, which Debian's libzmq 4.3 builds in.
constexpr int zmq_metadata_option = 95;

// Random multipart messages: 1 to 6 frames, sizes at the short/long boundary, empty, small or
// large (up to 1 MiB).
struct message_maker {
    std::mt19937_64 engine;
    explicit message_maker(std::uint64_t seed) : engine(seed) {}
    std::size_t below(std::size_t n) { return engine() % n; }
    frames_t next() {
        static constexpr std::size_t sizes[] = {0, 1, 254, 255, 256, 257, 65535, 65536, 1 << 20};
        frames_t frames(1 + below(6));
        for (auto& frame : frames) {
            const auto size = below(3) == 0 ? below(3000) : sizes[below(std::size(sizes))];
            frame.resize(size);
            for (auto& c : frame) c = static_cast<char>(engine());
        }
        return frames;
    }
};

struct received {
    std::vector<frames_t> messages;
    zmtp_reader::callbacks calls() {
        return {[this](frames_t&& frames) { messages.push_back(std::move(frames)); },
                [](const zmtp_dropped& drop) { FAIL("dropped: " << drop.reason); }};
    }
};

// Drives `channel` until `done` says so. The deadline only keeps a broken build from hanging.
template <class Done>
void pump(zmtp_channel& channel, received& got, Done done) {
    const auto give_up = std::chrono::steady_clock::now() + 60s;
    while (!done()) {
        REQUIRE(std::chrono::steady_clock::now() < give_up);
        channel.retry();
        if (channel.fd() < 0) {
            ::poll(nullptr, 0, 1);
            continue;
        }
        pollfd item{channel.fd(), channel.events(), 0};
        if (::poll(&item, 1, 100) > 0) channel.handle(item.revents, got.calls());
    }
}

frames_t receive(zmq::socket_t& socket) {
    std::vector<zmq::message_t> parts;
    REQUIRE(zmq::recv_multipart(socket, std::back_inserter(parts)));
    frames_t frames;
    for (auto& part : parts) frames.push_back(part.to_string());
    return frames;
}

zmtp_channel::options big_limits() {
    zmtp_channel::options options;
    options.limits = {16 << 20, 64};
    options.identity = "our-dealer";
    return options;
}

}  // namespace

TEST_SUITE("jupyter.zmtp against libzmq") {
    TEST_CASE("a libzmq ROUTER and our DEALER exchange random messages frame for frame") {
        ipybox::core::private_directory dir("ipybox-zl-");
        const auto endpoint = "ipc://" + (dir.path() / "router").string();
        zmq::context_t context(1);
        zmq::socket_t router(context, zmq::socket_type::router);
        router.set(zmq::sockopt::linger, 0);
        router.set(zmq::sockopt::router_mandatory, 1);  // an unknown peer is an error, not a drop
        router.set(zmq::sockopt::rcvtimeo, 10000);
        router.set(zmq::sockopt::sndtimeo, 10000);
        // Its READY carries a routing id and 10 KiB of application metadata (the reader once
        // refused commands over 4 KiB), and it pings every millisecond: PINGs interleave with
        // its messages.
        router.set(zmq::sockopt::routing_id, "kernel-router");
        const std::string notes = "X-Notes:" + std::string(10 * 1024, 'n');
        REQUIRE(zmq_setsockopt(router.handle(), zmq_metadata_option, notes.data(), notes.size()) ==
                0);
        router.set(zmq::sockopt::heartbeat_ivl, 1);
        router.set(zmq::sockopt::heartbeat_timeout, 600000);  // never drops us for a slow PONG
        router.bind(endpoint);

        received got;
        zmtp_channel channel(endpoint, "DEALER", big_limits());
        for (const std::uint64_t seed : {1u, 2u}) {
            message_maker make(seed);
            const auto count = ipybox::testing::fuzz_iterations(40);
            // Ours to libzmq: the ROUTER sees our identity, then exactly our frames.
            for (std::size_t i = 0; i < count; ++i) {
                const auto frames = make.next();
                channel.send(frames);
                pump(channel, got, [&] { return channel.queued_bytes() == 0; });
                auto seen = receive(router);
                REQUIRE(!seen.empty());
                CHECK(seen.front() == "our-dealer");
                seen.erase(seen.begin());
                CHECK(seen == frames);
            }
            // libzmq's to ours, routed by the identity we announced.
            std::vector<frames_t> sent;
            for (std::size_t i = 0; i < count; ++i) {
                sent.push_back(make.next());
                frames_t routed = {"our-dealer"};
                routed.insert(routed.end(), sent.back().begin(), sent.back().end());
                std::vector<zmq::const_buffer> parts;
                for (const auto& frame : routed) parts.push_back(zmq::buffer(frame));
                REQUIRE(zmq::send_multipart(router, parts));
                pump(channel, got, [&] { return got.messages.size() == sent.size(); });
            }
            CHECK(got.messages == sent);
            got.messages.clear();
        }
    }

    TEST_CASE("a libzmq PUB's random messages reach our SUB frame for frame") {
        ipybox::core::private_directory dir("ipybox-zl-");
        const auto endpoint = "ipc://" + (dir.path() / "iopub").string();
        zmq::context_t context(1);
        // XPUB, as ipykernel's IOPub: it says when our subscription has arrived.
        zmq::socket_t publisher(context, zmq::socket_type::xpub);
        publisher.set(zmq::sockopt::linger, 0);
        publisher.set(zmq::sockopt::rcvtimeo, 10000);
        publisher.set(zmq::sockopt::sndhwm, 0);
        publisher.bind(endpoint);

        received got;
        zmtp_channel channel(endpoint, "SUB", big_limits());
        zmq::message_t subscription;
        pump(channel, got,
             [&] { return publisher.recv(subscription, zmq::recv_flags::dontwait).has_value(); });
        CHECK(subscription.to_string() == std::string(1, '\x01'));
        message_maker make(7);
        std::vector<frames_t> sent;
        for (std::size_t i = 0; i < ipybox::testing::fuzz_iterations(40) * 2; ++i) {
            sent.push_back(make.next());
            std::vector<zmq::const_buffer> parts;
            for (const auto& frame : sent.back()) parts.push_back(zmq::buffer(frame));
            REQUIRE(zmq::send_multipart(publisher, parts));
            pump(channel, got, [&] { return got.messages.size() == sent.size(); });
        }
        CHECK(got.messages == sent);
    }
}
