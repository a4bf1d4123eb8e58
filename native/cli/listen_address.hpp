#pragma once
// `ipybox mcp --listen HOST:PORT`: the address as given, checked. Pure.
#include <cstdint>
#include <string>
#include <string_view>

namespace ipybox::cli {

struct listen_address {
    std::string host;  // an IP address ("localhost" becomes 127.0.0.1)
    std::uint16_t port = 0;
};

// "127.0.0.1:8000", "[::1]:8000", "localhost:0" (any free port). Throws std::invalid_argument
// saying what is wrong.
listen_address parse_listen_address(std::string_view text);

// True for 127.0.0.0/8 and ::1: an address only this machine can reach.
bool is_loopback_address(const std::string& host);

}  // namespace ipybox::cli
