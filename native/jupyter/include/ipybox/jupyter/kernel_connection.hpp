#pragma once
// A client's connection to one kernel: the shell, control, stdin, iopub and heartbeat channels,
// driven by an Asio io_context: the caller's (connection_options::io), so that any number of
// kernels cost the process no thread of their own, or else one the connection runs on a thread
// of its own.
//
// The channels speak ZMTP themselves (src/detail/zmtp.hpp) rather than through libzmq, which
// assembles every message whole however many frames it has: here a message over its channel's
// size or frame limit is dropped as it streams in, never held whole, so what a kernel sends costs
// ipybox at most one message of each channel's limit at a time. Such a drop is logged, counted
// and reported through on_dropped.
//
// Thread-safety: send(), watch_fd() and call_after() may be called from any thread. Handlers run on
// the io_context (on a strand of it), one at a time; they must return quickly, must not block on
// other work of the same io_context and must not call the destructor.
// Ownership: the connection owns its sockets. The destructor may be called from any thread but
// a handler's: once it returns no handler runs any more. With a thread of its own, the thread is
// joined and every socket closed at once; on the caller's io_context the sockets are closed
// there, as soon as it runs next (so that io_context must outlive the connection).
// Messages with a bad signature or a malformed frame are dropped, counted and logged, never
// delivered. Their JSON is decoded with core::decode_json's limits (depth, values).
#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "ipybox/jupyter/connection_info.hpp"
#include "ipybox/jupyter/message.hpp"

namespace boost::asio {
class io_context;
}

namespace ipybox::jupyter {

// send() refused a message because max_outgoing_bytes are already waiting for the kernel.
class outgoing_queue_full : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct connection_handlers {
    std::function<void(message&&)> on_shell;
    std::function<void(message&&)> on_control;
    std::function<void(message&&)> on_iopub;
    std::function<void(message&&)> on_stdin;
    // Called once when `heartbeat_misses` consecutive pings went unanswered.
    std::function<void()> on_heartbeat_lost;
    // Called when a message went over its channel's limits (`reason`: "over N bytes", "over N
    // frames") and was dropped unread, as soon as it did.
    std::function<void(channel which, const std::string& reason)> on_dropped;
};

struct connection_options {
    // Interval between heartbeat pings; zero disables the heartbeat.
    std::chrono::milliseconds heartbeat_interval{3000};
    int heartbeat_misses = 3;
    // The most one message may take, all its frames together, and how many frames it may have;
    // over either it is dropped. IOPub carries output (a display_data holds an image in base64),
    // the other channels replies and input requests.
    std::size_t max_iopub_message_bytes = 8 * 1024 * 1024;
    std::size_t max_reply_bytes = 1024 * 1024;
    std::size_t max_message_frames = 256;
    // Values and keys of one decoded JSON frame, at most.
    std::size_t max_json_values = 100000;
    // The most that messages waiting to go to the kernel may take, all channels together: a
    // kernel that stops reading (or never listens) fills it, and send() then refuses more. An
    // execute_request carries its code, so this is generous.
    std::size_t max_outgoing_bytes = 64 * 1024 * 1024;
    // The loop that drives the connection; null: a thread of the connection's own runs one.
    boost::asio::io_context* io = nullptr;
};

class kernel_connection {
  public:
    // Connects the sockets (the kernel need not be listening yet) and starts watching them.
    // `session_id` is also the ZeroMQ identity of the shell, control and stdin sockets, as with
    // jupyter_client: 1 to 255 bytes, the first not zero.
    // Throws std::invalid_argument for an endpoint it cannot use or a session_id that cannot be an
    // identity, std::system_error when the system refuses a descriptor.
    kernel_connection(const connection_info& info, std::string session_id,
                      connection_handlers handlers, connection_options options = {});
    ~kernel_connection();

    kernel_connection(const kernel_connection&) = delete;
    kernel_connection& operator=(const kernel_connection&) = delete;

    // Signs and queues `msg` on `which` (shell, control or stdin). Returns its msg_id.
    // Throws outgoing_queue_full, queueing nothing, when it would take the messages waiting for
    // the kernel past connection_options::max_outgoing_bytes.
    std::string send(channel which, message msg);

    // Watches a file descriptor (for example a pidfd) and calls `on_readable` like a handler
    // once it becomes readable; then stops watching it. The caller keeps the fd open.
    void watch_fd(int fd, std::function<void()> on_readable);
    // Calls `handler` like a handler, on the connection's loop, once `delay` has passed: a timer
    // of the loop, for work that comes back later instead of waiting. Never after the destructor.
    void call_after(std::chrono::milliseconds delay, std::function<void()> handler);

    const std::string& session_id() const;
    // Messages dropped: a bad signature, malformed frames, or over the size limits.
    std::size_t dropped_messages() const;

  private:
    struct impl;
    std::shared_ptr<impl> impl_;
};

}  // namespace ipybox::jupyter
