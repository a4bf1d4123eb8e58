#pragma once
// ZMTP 3.0 (rfc.zeromq.org/spec/23) with the NULL mechanism, the client side ipybox speaks on a
// kernel's channels: bytes in, frames and messages out. Pure: no sockets, tested without them.
//
// Why not libzmq: libzmq assembles every multipart message whole in its pipe before a reader
// sees its first frame, and bounds a frame's size (ZMQ_MAXMSGSIZE), never the number of frames
// or a message's total: a kernel sending one message of four million one-byte frames (8 MB on
// the wire) made a libzmq reader hold 250 MiB (measured, libzmq 4.3.4). This reader keeps at
// most `max_message_bytes` of a message and `max_frames` frames; past either it drops the
// message as it streams by, holding nothing more of it, and reports the drop once.
//
// Thread-safety: none (one reader per connection, on its I/O thread).
// Errors: a byte stream that is not ZMTP 3 with NULL security, an ERROR command, or an
// oversized command throws zmtp_error; the connection is then to be closed.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ipybox::jupyter::detail {

class zmtp_error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct zmtp_limits {
    std::size_t max_message_bytes = 16 * 1024 * 1024;  // sum of a message's frames
    std::size_t max_frames = 1024;                     // frames of one message
};

// The greeting a client sends first: version 3.0, mechanism NULL, not as server (64 bytes).
std::string zmtp_greeting();
// The READY command of the NULL handshake, announcing `socket_type` ("DEALER", "SUB", "REQ").
std::string zmtp_ready(std::string_view socket_type);
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

    explicit zmtp_reader(zmtp_limits limits = {});

    // Consumes `bytes`, calling back for every message completed or dropped in them.
    void feed(std::string_view bytes, const callbacks& calls);
    // The peer's greeting and READY have arrived.
    bool ready() const { return handshaken_; }
    // Bytes of messages held now (the message being received).
    std::size_t held_bytes() const { return held_; }
    // Messages delivered through on_message so far.
    std::uint64_t delivered() const { return delivered_; }

  private:
    enum class state { greeting, frame_flags, frame_size, frame_body };

    void on_frame_header(const callbacks& calls);
    void on_frame_end(const callbacks& calls);
    void on_command(const std::string& body);

    zmtp_limits limits_;
    state state_ = state::greeting;
    bool handshaken_ = false;  // the peer's READY came
    std::string pending_;      // a greeting or a frame size being assembled
    std::uint8_t flags_ = 0;
    std::uint64_t remaining_ = 0;  // bytes of the current frame body still to come
    bool in_message_ = false;      // a frame with MORE came: the next one continues it
    bool dropping_ = false;        // the current message went over a limit
    std::string command_;          // the body of a command frame
    std::vector<std::string> frames_;
    std::size_t held_ = 0;
    std::uint64_t delivered_ = 0;
};

}  // namespace ipybox::jupyter::detail
