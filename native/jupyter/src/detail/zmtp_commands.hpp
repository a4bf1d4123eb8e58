#pragma once
// The commands of ZMTP 3.1 (rfc.zeromq.org/spec/37) a client on a kernel's channel sends and
// reads, and the frame encoding they share with messages. Pure: bytes in, bytes out.
//
// Errors: malformed input throws zmtp_error (zmtp.hpp); bad arguments of the encoders, which
// come from ipybox itself, throw std::invalid_argument.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ipybox::jupyter::detail {

class zmtp_error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

inline constexpr std::uint8_t zmtp_flag_more = 0x01;
inline constexpr std::uint8_t zmtp_flag_long = 0x02;
inline constexpr std::uint8_t zmtp_flag_command = 0x04;
// A PING's context, echoed in the PONG, is at most this long.
inline constexpr std::size_t zmtp_max_ping_context = 16;

// Appends one frame: short form up to 255 bytes, long form past that.
void zmtp_append_frame(std::string& out, std::uint8_t flags, std::string_view body);

// The READY command of the NULL handshake, announcing `socket_type` ("DEALER", "SUB", "REQ")
// and, when not empty, `identity`: the name a ROUTER peer routes to this connection by (1 to 255
// bytes, the first not zero, as the spec reserves those; std::invalid_argument otherwise).
std::string zmtp_ready(std::string_view socket_type, std::string_view identity = {});
// The PONG answering a PING whose context was `context` (at most 16 bytes).
std::string zmtp_pong(std::string_view context);

struct zmtp_property {
    std::string name;
    std::string value;
};

// The properties of a READY command: `metadata` is its body after the name. Each property is a
// name of 1 to 255 bytes after its length octet, then a value after its 4-octet length; a length
// past the end of the body, or an empty name, throws zmtp_error.
std::vector<zmtp_property> zmtp_parse_metadata(std::string_view metadata);

// Whether a socket of type `ours` may talk to a peer of type `theirs`, as the spec's table of
// legal combinations has it (DEALER with REP, DEALER or ROUTER; REQ with REP or ROUTER; SUB with
// PUB or XPUB; ...). Socket types are compared exactly, as libzmq does.
bool zmtp_socket_types_pair(std::string_view ours, std::string_view theirs);

}  // namespace ipybox::jupyter::detail
