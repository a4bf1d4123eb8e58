#pragma once
// One of a kernel's channels as ipybox connects to it: a stream socket (ipc:// or tcp://) to
// the kernel's bound ZeroMQ socket, speaking ZMTP through zmtp.hpp. I/O only: it moves bytes
// between the socket and the reader or the queue of outgoing messages, and reconnects.
//
// As libzmq's connecting sockets do, it connects before the kernel listens and retries until it
// can, then for as long as it lives whenever the connection breaks, waiting as
// reconnect_policy.hpp says: a refused connect is retried after 5 ms, then 10, then every 20 ms;
// a connection that was accepted and failed before it was healthy (handshake done, a message
// delivered) doubles the wait up to 1 s, so that a kernel answering garbage costs a reconnect a
// second, and a protocol error is logged at most once a minute with the count of the others.
// Messages sent meanwhile wait in its queue (the one being written when a connection broke is
// sent again whole on the next). A SUB channel subscribes to everything on each connection.
// Reading is bounded per call (fairness between channels) and by the reader's limits (memory).
//
// Thread-safety: none; the owner's I/O thread drives it: wait on fd() for events(), then call
// handle(revents); call retry() when reconnect_due() passes.
#include <chrono>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "reconnect_policy.hpp"
#include "zmtp.hpp"

namespace ipybox::jupyter::detail {

class zmtp_channel {
  public:
    using clock = std::chrono::steady_clock;

    struct options {
        zmtp_limits limits;
        // Announced in READY, for a ROUTER peer to route by (zmtp_ready); empty: none.
        std::string identity;
        reconnect_backoff::options backoff;
        // Where reconnect times come from; tests drive it by hand.
        std::function<clock::time_point()> now = [] { return clock::now(); };
        // Called with fd() just before the channel closes it (whoever watches it lets go).
        std::function<void(int)> before_close;
    };

    // `endpoint` as in a connection file ("ipc:///dir/k-1", "tcp://127.0.0.1:5555");
    // `socket_type` as ZMTP names it ("DEALER", "SUB", "REQ"). Throws std::invalid_argument for
    // an endpoint it cannot use or an identity ZMTP does not allow. Connects at once (or schedules
    // the first retry).
    zmtp_channel(std::string endpoint, std::string socket_type, options o);
    ~zmtp_channel();
    zmtp_channel(const zmtp_channel&) = delete;
    zmtp_channel& operator=(const zmtp_channel&) = delete;

    // Queues a message; it goes out once the channel is connected.
    void send(const std::vector<std::string>& frames);
    // Bytes of the messages queued and not yet written whole (the owner bounds them).
    std::size_t queued_bytes() const { return queued_bytes_; }

    int fd() const { return fd_; }  // -1 while waiting to reconnect
    short events() const;           // POLLIN, and POLLOUT while there is to write
    clock::time_point reconnect_due() const { return reconnect_at_; }  // valid while fd() < 0
    // Reads what is there (at most `read_budget` bytes) and writes what it can. A broken
    // connection or a protocol error closes the socket, logs why and schedules a reconnect.
    void handle(short revents, const zmtp_reader::callbacks& calls,
                std::size_t read_budget = 1024 * 1024);
    void retry();  // connects again if its time has come

  private:
    void connect();
    void close_socket();
    void on_connected();
    enum class failure { refused, broken, protocol };
    void disconnect(failure kind, const std::string& why);
    bool flush();  // false when the connection broke

    std::string endpoint_;
    std::string socket_type_;
    options options_;
    int fd_ = -1;
    bool connecting_ = false;  // a non-blocking connect is under way
    zmtp_reader reader_;
    std::string handshake_;          // greeting and READY still to write
    std::string pong_;               // a PONG still to write
    std::deque<std::string> queue_;  // encoded messages
    std::size_t written_ = 0;        // bytes of queue_.front() already written
    std::size_t queued_bytes_ = 0;   // of queue_'s messages
    bool healthy_ = false;           // this connection delivered a message after its handshake
    reconnect_backoff backoff_;
    failure_log failures_;
    clock::time_point reconnect_at_{};
};

}  // namespace ipybox::jupyter::detail
