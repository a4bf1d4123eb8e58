#pragma once
// A client's connection to one kernel: the shell, control, stdin, iopub and heartbeat sockets,
// owned by one I/O thread (ZeroMQ sockets never cross threads).
//
// Thread-safety: send() and watch_fd() may be called from any thread. Handlers run on the I/O
// thread, one at a time; they must return quickly and must not call the destructor.
// Ownership: the connection owns its ZeroMQ context and thread; the destructor stops the thread
// (through an in-process wake socket) and closes every socket without lingering.
// Messages with a bad signature or a malformed frame are dropped, counted and logged, never
// delivered.
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "ipybox/jupyter/connection_info.hpp"
#include "ipybox/jupyter/message.hpp"

namespace ipybox::jupyter {

struct connection_handlers {
    std::function<void(message&&)> on_shell;
    std::function<void(message&&)> on_control;
    std::function<void(message&&)> on_iopub;
    std::function<void(message&&)> on_stdin;
    // Called once when `heartbeat_misses` consecutive pings went unanswered.
    std::function<void()> on_heartbeat_lost;
};

struct connection_options {
    // Interval between heartbeat pings; zero disables the heartbeat.
    std::chrono::milliseconds heartbeat_interval{3000};
    int heartbeat_misses = 3;
};

class kernel_connection {
  public:
    // Connects the sockets (the kernel need not be listening yet) and starts the I/O thread.
    // Throws std::runtime_error if ZeroMQ cannot create or connect a socket.
    kernel_connection(const connection_info& info, std::string session_id,
                      connection_handlers handlers, connection_options options = {});
    ~kernel_connection();

    kernel_connection(const kernel_connection&) = delete;
    kernel_connection& operator=(const kernel_connection&) = delete;

    // Signs and queues `msg` on `which` (shell, control or stdin). Returns its msg_id.
    std::string send(channel which, message msg);

    // Watches a file descriptor (for example a pidfd) and calls `on_readable` on the I/O thread
    // once it becomes readable; then stops watching it. The caller keeps the fd open.
    void watch_fd(int fd, std::function<void()> on_readable);

    const std::string& session_id() const;
    // Messages dropped because of a bad signature or malformed frames.
    std::size_t dropped_messages() const;

  private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace ipybox::jupyter
