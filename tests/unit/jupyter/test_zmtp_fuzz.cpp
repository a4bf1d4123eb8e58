// The ZMTP reader fed random and mutated byte streams (native/jupyter/src/detail/zmtp.hpp): it
// never crashes, never holds more than its limits, and either delivers frames or throws
// zmtp_error. Deterministic: fixed seeds, a fixed number of streams each; IPYBOX_FUZZ_ITERATIONS
// sets another number for a long run locally. The sanitizer tier (tests/sanitize) runs this file
// under ASan and UBSan with the rest of test_jupyter, which is what catches a read past a bound.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "detail/zmtp.hpp"
#include "zmtp_test_support.hpp"

using namespace ipybox::jupyter::detail;

namespace {

constexpr zmtp_limits limits{4096, 8};

// Draws from a seeded generator in the same way on every standard library.
struct dice {
    std::mt19937_64 engine;
    explicit dice(std::uint64_t seed) : engine(seed) {}
    std::size_t below(std::size_t n) { return n == 0 ? 0 : engine() % n; }
    bool chance(std::size_t one_in) { return below(one_in) == 0; }
    std::string bytes(std::size_t n) {
        std::string out(n, '\0');
        for (auto& c : out) c = static_cast<char>(engine());
        return out;
    }
    // Frame sizes around the short/long boundary and the limits, or any under 6000.
    std::size_t frame_size() {
        static constexpr std::size_t edges[] = {0, 1, 254, 255, 256, 257, 4095, 4096, 4097};
        return chance(2) ? edges[below(std::size(edges))] : below(6000);
    }
};

std::string command(std::string_view name, std::string_view data) {
    return ipybox::testing::zmtp_command(name, data);
}

struct stream {
    std::string bytes;
    std::vector<std::vector<std::string>> expected;  // what a correct reader delivers
};

// A valid conversation from a ROUTER: greeting, READY with random extra metadata, then
// messages, PINGs, PONGs and unknown commands.
stream valid_stream(dice& d) {
    stream s;
    s.bytes = zmtp_greeting();
    std::string extra;
    for (std::size_t i = d.below(3); i > 0; --i) {
        const std::string name = "X-" + std::to_string(d.below(1000));
        const auto value = d.bytes(d.below(300));
        extra.push_back(static_cast<char>(name.size()));
        extra += name;
        for (int shift = 24; shift >= 0; shift -= 8) {
            extra.push_back(static_cast<char>((value.size() >> shift) & 0xff));
        }
        extra += value;
    }
    const auto ready = zmtp_ready("ROUTER", d.chance(2) ? "" : "k");
    // Extra properties go after Socket-Type: the command's size grows by as much.
    std::string body = ready.substr(2) + extra;
    zmtp_append_frame(s.bytes, zmtp_flag_command, body);
    for (std::size_t n = d.below(12); n > 0; --n) {
        switch (d.below(6)) {
            case 0:
                s.bytes += command("PING", d.bytes(2 + d.below(17)));
                break;
            case 1:
                s.bytes += command(d.chance(2) ? "PONG" : "SUBSCRIBE", d.bytes(d.below(17)));
                break;
            default: {
                std::vector<std::string> frames(1 + d.below(d.chance(4) ? 12 : 4));
                std::size_t total = 0;
                for (auto& frame : frames) {
                    frame = d.bytes(d.frame_size());
                    total += frame.size();
                }
                zmtp_append_message(s.bytes, frames);
                if (frames.size() <= limits.max_frames && total <= limits.max_message_bytes) {
                    s.expected.push_back(std::move(frames));
                }
            }
        }
    }
    return s;
}

// Flips bits, inserts, deletes, overwrites (size fields among them) or truncates.
void mutate(dice& d, std::string& bytes) {
    for (std::size_t n = 1 + d.below(4); n > 0 && !bytes.empty(); --n) {
        const auto at = d.below(bytes.size());
        switch (d.below(5)) {
            case 0:
                bytes[at] = static_cast<char>(bytes[at] ^ (1 << d.below(8)));
                break;
            case 1:
                bytes.insert(at, d.bytes(1 + d.below(9)));
                break;
            case 2:
                bytes.erase(at, 1 + d.below(9));
                break;
            case 3:
                bytes.replace(at, 8, d.chance(2) ? std::string(8, '\xff') : d.bytes(8));
                break;
            default:
                bytes.resize(at);
        }
    }
}

struct outcome {
    std::vector<std::vector<std::string>> messages;
    bool failed = false;
};

// Feeds `bytes` in random pieces, checking the reader's bounds after every callback and piece.
outcome feed_in_pieces(dice& d, const std::string& bytes) {
    zmtp_reader reader("DEALER", limits);
    outcome got;
    std::size_t delivered_bytes = 0;
    zmtp_reader::callbacks calls{[&](std::vector<std::string>&& frames) {
                                     CHECK(frames.size() <= limits.max_frames);
                                     std::size_t total = 0;
                                     for (const auto& frame : frames) total += frame.size();
                                     CHECK(total <= limits.max_message_bytes);
                                     delivered_bytes += total;
                                     got.messages.push_back(std::move(frames));
                                 },
                                 [&](const zmtp_dropped& drop) { CHECK(!drop.reason.empty()); }};
    std::size_t at = 0;
    while (at < bytes.size()) {
        const auto piece = std::min(bytes.size() - at, 1 + d.below(d.chance(3) ? 8 : 3000));
        // A copy of just the piece: a read past its end is a read past a heap block for ASan.
        const std::string chunk = bytes.substr(at, piece);
        at += piece;
        try {
            reader.feed(chunk, calls);
        } catch (const zmtp_error& e) {
            CHECK(std::string(e.what()).size() > 0);
            got.failed = true;
            break;
        } catch (const std::exception& e) {
            FAIL("not a zmtp_error: " << e.what());
        }
        REQUIRE(reader.held_bytes() <= limits.max_message_bytes);
    }
    CHECK(delivered_bytes <= bytes.size());
    return got;
}

}  // namespace

TEST_SUITE("jupyter.zmtp fuzz") {
    TEST_CASE("valid streams cut anywhere deliver exactly the messages within the limits") {
        const auto count = ipybox::testing::fuzz_iterations(300);
        for (const std::uint64_t seed : {1u, 2u, 3u}) {
            dice d(seed);
            for (std::size_t i = 0; i < count; ++i) {
                const auto s = valid_stream(d);
                const auto got = feed_in_pieces(d, s.bytes);
                CHECK_FALSE(got.failed);
                CHECK(got.messages == s.expected);
            }
        }
    }

    TEST_CASE("mutated and random streams end in frames or a zmtp_error, within bounds") {
        const auto count = ipybox::testing::fuzz_iterations(1000);
        for (const std::uint64_t seed : {11u, 12u, 13u}) {
            dice d(seed);
            for (std::size_t i = 0; i < count; ++i) {
                std::string bytes;
                if (d.chance(10)) {
                    bytes = d.bytes(d.below(512));  // noise
                    if (d.chance(2)) bytes = zmtp_greeting() + bytes;
                } else {
                    bytes = valid_stream(d).bytes;
                    mutate(d, bytes);
                }
                feed_in_pieces(d, bytes);
            }
        }
    }
}
