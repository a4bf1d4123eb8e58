#pragma once
// ZMTP (rfc.zeromq.org/spec/23 and 37) with the NULL mechanism, the client side ipybox speaks on
// a kernel's channels: bytes in, frames and messages out. Pure: no sockets, tested without them.
// We greet as 3.0, so that a publisher takes our subscription as a message, and answer 3.1's
// PING all the same (libzmq sends it to 3.0 peers too when its heartbeat is on).
//
// Why not libzmq: libzmq assembles every multipart message whole in its pipe before a reader
// sees its first frame, and bounds a frame's size (ZMQ_MAXMSGSIZE), never the number of frames
// or a message's total: a kernel sending one message of four million one-byte frames (8 MB on
// the wire) made a libzmq reader hold 250 MiB (measured, libzmq 4.3.4). This reader keeps at
// most `max_message_bytes` of a message and `max_frames` frames; past either it drops the
// message as it streams by, holding nothing more of it, and reports the drop once.
//
// The peer's READY is parsed (zmtp_commands.hpp) and its Socket-Type must pair with ours.
// Commands are held whole until parsed, so they are bounded (max_command_bytes below).
//
// Thread-safety: none (one reader per connection, on its I/O thread).
// Errors: a byte stream that is not ZMTP 3 with NULL security, a peer whose socket type does not
// pair with ours, an ERROR command, a malformed or oversized command throws zmtp_error; the
// connection is then to be closed.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zmtp_commands.hpp"

namespace ipybox::jupyter::detail {

struct zmtp_limits {
    std::size_t max_message_bytes = 16 * 1024 * 1024;  // sum of a message's frames
    std::size_t max_frames = 1024;                     // frames of one message
};

// The largest command the reader takes. A READY carries the peer's metadata, which libzmq lets
// an application extend without limit (ZMQ_METADATA); a kernel sends Socket-Type and maybe an
// Identity (at most 255 bytes). 64 KiB takes any metadata a real kernel plausibly sends, where
// the former 4 KiB refused a few application properties, while a hostile kernel still makes a
// connection hold no more than 64 KiB of a command, well under any channel's message limit.
inline constexpr std::size_t zmtp_max_command_bytes = 64 * 1024;

// The greeting a client sends first: version 3.0, mechanism NULL, not as server (64 bytes).
std::string zmtp_greeting();
// Appends `frames` as one message (each but the last with MORE).
void zmtp_append_message(std::string& out, const std::vector<std::string>& frames);

// What the reader reports about a message it did not keep.
struct zmtp_dropped {
    std::string reason;  // "over 16777216 bytes", "over 1024 frames"
};

class zmtp_reader {
  public:
    struct callbacks {
        std::function<void(std::vector<std::string>&& frames)> on_message;
        // Once per dropped message, as soon as it goes over a limit.
        std::function<void(const zmtp_dropped&)> on_dropped;
    };

    // `socket_type`: ours, which the peer's must pair with ("DEALER", "SUB", "REQ").
    explicit zmtp_reader(std::string socket_type, zmtp_limits limits = {});

    // Consumes `bytes`, calling back for every message completed or dropped in them.
    void feed(std::string_view bytes, const callbacks& calls);
    // The peer's greeting and READY have arrived.
    bool ready() const { return handshaken_; }
    // The peer's Socket-Type, once ready().
    const std::string& peer_socket_type() const { return peer_socket_type_; }
    // The context of the latest PING not yet answered, to echo in a PONG; taking it clears it.
    // Only the latest is kept: a peer that pings faster than we answer gets one PONG.
    std::optional<std::string> take_ping();
    // Bytes of messages held now (the message being received).
    std::size_t held_bytes() const { return held_; }
    // Messages delivered through on_message so far.
    std::uint64_t delivered() const { return delivered_; }

  private:
    enum class state { greeting, frame_flags, frame_size, frame_body };

    void on_frame_header(const callbacks& calls);
    void on_frame_end(const callbacks& calls);
    void on_command(const std::string& body);
    void on_ready(std::string_view metadata);

    std::string socket_type_;
    zmtp_limits limits_;
    std::string peer_socket_type_;
    std::optional<std::string> ping_;  // context of a PING to answer
    state state_ = state::greeting;
    bool handshaken_ = false;  // the peer's READY came
    std::string pending_;      // a greeting or a frame size being assembled
    std::uint8_t flags_ = 0;
    std::uint64_t remaining_ = 0;  // bytes of the current frame body still to come
    bool dropping_ = false;        // the current message went over a limit
    std::string command_;          // the body of a command frame
    std::vector<std::string> frames_;
    std::size_t held_ = 0;
    std::uint64_t delivered_ = 0;
};

}  // namespace ipybox::jupyter::detail
