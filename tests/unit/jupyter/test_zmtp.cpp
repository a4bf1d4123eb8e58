// ZMTP as ipybox's channels speak it, without sockets: what a client sends first, messages
// reassembled from any cut of the byte stream, and messages over the limits dropped as they
// stream by while holding at most the limit.
#include <doctest/doctest.h>

#include <cstdint>

#include "detail/zmtp.hpp"
#include "zmtp_test_support.hpp"

using namespace ipybox::jupyter::detail;

namespace {

// What a libzmq peer sends before traffic: its greeting and a READY (as a ROUTER).
std::string peer_handshake() {
    return zmtp_greeting() + zmtp_ready("ROUTER");
}

// A frame header declaring `size` bytes (flags as given, the long form when needed).
std::string frame_header(std::uint64_t size, bool more) {
    std::string header;
    if (size > 255) {
        header.push_back(static_cast<char>(0x02 | (more ? 0x01 : 0)));
        for (int shift = 56; shift >= 0; shift -= 8) {
            header.push_back(static_cast<char>((size >> shift) & 0xff));
        }
    } else {
        header.push_back(static_cast<char>(more ? 0x01 : 0));
        header.push_back(static_cast<char>(size));
    }
    return header;
}

std::string command(std::string_view name, std::string_view data) {
    return ipybox::testing::zmtp_command(name, data);
}

// A READY command with these properties, in order.
std::string ready_with(const std::vector<std::pair<std::string, std::string>>& properties) {
    std::string metadata;
    for (const auto& [name, value] : properties) {
        metadata.push_back(static_cast<char>(name.size()));
        metadata.append(name);
        for (int shift = 24; shift >= 0; shift -= 8) {
            metadata.push_back(static_cast<char>((value.size() >> shift) & 0xff));
        }
        metadata.append(value);
    }
    return command("READY", metadata);
}

struct recorder {
    std::vector<std::vector<std::string>> messages;
    std::vector<std::string> dropped;
    zmtp_reader::callbacks calls() {
        return {[this](std::vector<std::string>&& frames) { messages.push_back(frames); },
                [this](const zmtp_dropped& drop) { dropped.push_back(drop.reason); }};
    }
};

}  // namespace

TEST_SUITE("jupyter.zmtp") {
    TEST_CASE("a client greets as ZMTP 3.0 with NULL security and announces its socket type") {
        const auto greeting = zmtp_greeting();
        REQUIRE(greeting.size() == 64);
        CHECK(static_cast<unsigned char>(greeting[0]) == 0xff);
        CHECK(greeting[9] == 0x7f);
        CHECK(greeting[10] == 3);
        CHECK(greeting[11] == 0);
        CHECK(greeting.substr(12, 4) == "NULL");
        CHECK(greeting[32] == 0);  // not as server
        const auto ready = zmtp_ready("DEALER");
        CHECK(ready == std::string("\x04\x1c\x05READY\x0bSocket-Type\0\0\0\x06"
                                   "DEALER",
                                   30));
    }

    TEST_CASE("a DEALER announces its identity in READY, as ZMTP allows one") {
        CHECK(zmtp_ready("DEALER", "s-1") ==
              ready_with({{"Socket-Type", "DEALER"}, {"Identity", "s-1"}}));
        CHECK_THROWS_AS(zmtp_ready("DEALER", std::string(256, 'x')), std::invalid_argument);
        CHECK_THROWS_AS(zmtp_ready("DEALER", std::string("\0x", 2)), std::invalid_argument);
    }

    TEST_CASE("messages come out whole however the byte stream is cut") {
        const std::vector<std::vector<std::string>> sent = {
            {"<IDS|MSG>", "signature", "{}"}, {std::string(300, 'x')}, {"", "ping"}};
        std::string stream = peer_handshake();
        for (const auto& message : sent) zmtp_append_message(stream, message);
        for (const std::size_t cut :
             {std::size_t(1), std::size_t(7), std::size_t(64), stream.size()}) {
            zmtp_reader reader("DEALER");
            recorder got;
            for (std::size_t at = 0; at < stream.size(); at += cut) {
                reader.feed(std::string_view(stream).substr(at, cut), got.calls());
            }
            CHECK(reader.ready());
            CHECK(got.messages == sent);
            CHECK(got.dropped.empty());
        }
    }

    TEST_CASE("a message over the byte limit is dropped as it streams by, never held") {
        zmtp_reader reader("DEALER", {1024 * 1024, 64});
        recorder got;
        reader.feed(peer_handshake(), got.calls());
        // One frame declaring 64 MiB, sent in pieces of 1 MiB.
        reader.feed(frame_header(64u << 20, false), got.calls());
        const std::string piece(1 << 20, 'x');
        std::size_t most_held = 0;
        for (int i = 0; i < 64; ++i) {
            reader.feed(piece, got.calls());
            most_held = std::max(most_held, reader.held_bytes());
        }
        CHECK(most_held == 0);
        REQUIRE(got.dropped.size() == 1);
        CHECK(got.dropped[0] == "over 1048576 bytes");
        std::string next;
        zmtp_append_message(next, {"after"});
        reader.feed(next, got.calls());
        CHECK(got.messages == std::vector<std::vector<std::string>>{{"after"}});
    }

    TEST_CASE("a message of a million one-byte frames is dropped at the frame limit") {
        zmtp_reader reader("DEALER", {1024 * 1024, 256});
        recorder got;
        reader.feed(peer_handshake(), got.calls());
        std::string frames;
        for (int i = 0; i < 1000; ++i) frames += frame_header(1, true) + "x";
        std::size_t most_held = 0;
        for (int round = 0; round < 1000; ++round) {
            reader.feed(frames, got.calls());
            most_held = std::max(most_held, reader.held_bytes());
        }
        reader.feed(frame_header(1, false) + "x", got.calls());
        CHECK(most_held <= 256);
        CHECK(got.dropped == std::vector<std::string>{"over 256 frames"});
        CHECK(got.messages.empty());
    }

    TEST_CASE("a peer that is not ZMTP 3 with NULL security, or refuses us, is an error") {
        recorder got;
        std::string http = "GET / HTTP/1.1\r\n";
        http.resize(64, ' ');
        CHECK_THROWS_AS(zmtp_reader("DEALER").feed(http, got.calls()), zmtp_error);
        auto curve = zmtp_greeting();
        curve.replace(12, 5, "CURVE");
        CHECK_THROWS_AS(zmtp_reader("DEALER").feed(curve, got.calls()), zmtp_error);
        std::string refusal = zmtp_greeting();
        refusal += std::string(
            "\x04\x0e\x05"
            "ERROR\x07no way!",
            16);
        CHECK_THROWS_WITH_AS(zmtp_reader("DEALER").feed(refusal, got.calls()),
                             doctest::Contains("no way!"), zmtp_error);
        std::string early = zmtp_greeting();
        zmtp_append_message(early, {"before READY"});
        CHECK_THROWS_AS(zmtp_reader("DEALER").feed(early, got.calls()), zmtp_error);
    }

    TEST_CASE("the peer's Socket-Type must pair with ours, and a mismatch says which") {
        recorder got;
        const auto handshake = [](const std::string& type) {
            return zmtp_greeting() + ready_with({{"Socket-Type", type}});
        };
        for (const auto& [ours, theirs] :
             std::vector<std::pair<std::string, std::string>>{{"DEALER", "ROUTER"},
                                                              {"DEALER", "REP"},
                                                              {"SUB", "PUB"},
                                                              {"SUB", "XPUB"},
                                                              {"REQ", "REP"},
                                                              {"REQ", "ROUTER"}}) {
            zmtp_reader reader(ours);
            reader.feed(handshake(theirs), got.calls());
            CHECK(reader.ready());
            CHECK(reader.peer_socket_type() == theirs);
        }
        CHECK_THROWS_WITH_AS(zmtp_reader("DEALER").feed(handshake("PUB"), got.calls()),
                             "the peer is a PUB socket, which a DEALER socket cannot talk to",
                             zmtp_error);
        CHECK_THROWS_AS(zmtp_reader("SUB").feed(handshake("ROUTER"), got.calls()), zmtp_error);
        CHECK_THROWS_AS(zmtp_reader("REQ").feed(handshake("DEALER"), got.calls()), zmtp_error);
        // Names are case-insensitive; values (socket types) are not.
        zmtp_reader lower("DEALER");
        lower.feed(zmtp_greeting() + ready_with({{"socket-TYPE", "ROUTER"}}), got.calls());
        CHECK(lower.ready());
        CHECK_THROWS_AS(zmtp_reader("DEALER").feed(handshake("router"), got.calls()), zmtp_error);
        CHECK_THROWS_WITH_AS(zmtp_reader("DEALER").feed(
                                 zmtp_greeting() + ready_with({{"Identity", "k"}}), got.calls()),
                             "a READY without a Socket-Type", zmtp_error);
    }

    TEST_CASE("READY metadata up to 64 KiB is read, and refused past it or cut short") {
        recorder got;
        // libzmq sends what ZMQ_METADATA adds: 10 KiB of it was fatal at the former 4 KiB.
        zmtp_reader big("DEALER");
        big.feed(zmtp_greeting() + ready_with({{"Socket-Type", "ROUTER"},
                                               {"X-Notes", std::string(10 * 1024, 'n')},
                                               {"Identity", "kernel"}}),
                 got.calls());
        CHECK(big.ready());
        CHECK_THROWS_AS(
            zmtp_reader("DEALER").feed(
                zmtp_greeting() + ready_with({{"Socket-Type", "ROUTER"},
                                              {"X-Notes", std::string(64 * 1024, 'n')}}),
                got.calls()),
            zmtp_error);
        // A value length past the end of the command, a length cut short, an empty name.
        auto overlong = ready_with({{"Socket-Type", "ROUTER"}});
        overlong[overlong.size() - 10] = 0x7f;  // the value's length, now about 2 GB
        for (const auto& bad : {overlong, command("READY", std::string("\x0bSocket-Type\0\0", 14)),
                                command("READY", std::string("\0\0\0\0\0", 5))}) {
            CHECK_THROWS_AS(zmtp_reader("DEALER").feed(zmtp_greeting() + bad, got.calls()),
                            zmtp_error);
        }
        CHECK_THROWS_AS(zmtp_parse_metadata(std::string("\x03"
                                                        "abc\x00\x00\x01",
                                                        7)),
                        zmtp_error);
    }

    TEST_CASE("a PING is owed a PONG with its context, and PONG and unknown commands are ignored") {
        zmtp_reader reader("DEALER");
        recorder got;
        reader.feed(peer_handshake(), got.calls());
        CHECK_FALSE(reader.take_ping());
        reader.feed(command("PING", std::string("\0\x0a"
                                                "ctx-1",
                                                7)),
                    got.calls());
        reader.feed(command("PING", std::string("\0\x0a"
                                                "ctx-2",
                                                7)),
                    got.calls());
        CHECK(reader.take_ping() == std::optional<std::string>("ctx-2"));  // the latest only
        CHECK_FALSE(reader.take_ping());
        reader.feed(command("PONG", "whatever"), got.calls());
        reader.feed(command("SUBSCRIBE", "topic"), got.calls());
        std::string message;
        zmtp_append_message(message, {"after"});
        reader.feed(message, got.calls());
        CHECK(got.messages == std::vector<std::vector<std::string>>{{"after"}});
        CHECK(zmtp_pong("ctx-2") == command("PONG", "ctx-2"));
        // libzmq pings between the frames of a message too: the message goes on around it.
        std::string split;
        zmtp_append_frame(split, zmtp_flag_more, "first");
        split += command("PING", std::string("\0\0"
                                             "mid",
                                             5));
        zmtp_append_frame(split, 0, "second");
        reader.feed(split, got.calls());
        CHECK(reader.take_ping() == std::optional<std::string>("mid"));
        CHECK(got.messages.back() == std::vector<std::string>{"first", "second"});

        // A context over 16 bytes, a PING without its TTL, a PING before READY, a second READY.
        for (const auto& bad : {command("PING", std::string(2 + 17, 'x')), command("PING", "x"),
                                command("PONG", std::string(17, 'x')), zmtp_ready("ROUTER")}) {
            zmtp_reader strict("DEALER");
            strict.feed(peer_handshake(), got.calls());
            CHECK_THROWS_AS(strict.feed(bad, got.calls()), zmtp_error);
        }
        CHECK_THROWS_WITH_AS(
            zmtp_reader("DEALER").feed(zmtp_greeting() + command("PING", std::string(2, '\0')),
                                       got.calls()),
            "a PING command before the peer's READY", zmtp_error);
    }
}
