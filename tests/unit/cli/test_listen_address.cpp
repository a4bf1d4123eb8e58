// `ipybox mcp --listen HOST:PORT` (listen_address.hpp): what is accepted, what is refused, and
// which addresses count as loopback (only those may be served without authentication).
#include <doctest/doctest.h>

#include <stdexcept>

#include "listen_address.hpp"

using ipybox::cli::is_loopback_address;
using ipybox::cli::parse_listen_address;

TEST_CASE("listen addresses: IPv4, bracketed IPv6, localhost, port 0") {
    CHECK(parse_listen_address("127.0.0.1:8000").host == "127.0.0.1");
    CHECK(parse_listen_address("127.0.0.1:8000").port == 8000);
    CHECK(parse_listen_address("[::1]:9").host == "::1");
    CHECK(parse_listen_address("localhost:0").host == "127.0.0.1");
    CHECK(parse_listen_address("localhost:0").port == 0);
}

TEST_CASE("listen addresses: a missing or bad port and a host name are refused") {
    for (const char* text :
         {"127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:8x", "example.com:80", ":80"}) {
        CAPTURE(text);
        CHECK_THROWS_AS(parse_listen_address(text), std::invalid_argument);
    }
}

TEST_CASE("loopback: 127.0.0.0/8 and ::1 only") {
    CHECK(is_loopback_address("127.0.0.1"));
    CHECK(is_loopback_address("127.1.2.3"));
    CHECK(is_loopback_address("::1"));
    CHECK_FALSE(is_loopback_address("0.0.0.0"));
    CHECK_FALSE(is_loopback_address("::"));
    CHECK_FALSE(is_loopback_address("192.168.1.2"));
}
