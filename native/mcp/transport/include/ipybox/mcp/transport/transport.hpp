#pragma once
// A transport moves framed JSON-RPC messages between us and one peer. It knows no method names:
// sessions, ids and timeouts live above it (jsonrpc::dispatcher, mcp::session).
//
// Call order: start() once, then send() any number of times, then close() for an orderly end
// (destruction without close() is abrupt: the stdio client kills its child). The handlers given
// to start() are called on the transport's io_context thread, never concurrently with each other:
//   - on_message for every decoded message, or a jsonrpc::decode_failure for a frame that is not
//     a valid message (the dispatcher decides whether to answer it);
//   - on_close exactly once, after the last on_message, when the channel is gone for any reason:
//     close() was called, the peer hung up, or a child process died. close_info says why;
//   - on_activity (optional) when bytes arrived that leave a message still in transit (a large
//     answer coming in): a sign of life for the deadlines of requests (dispatcher.hpp). It may be
//     called often, from the I/O thread; it must be cheap and must not throw.
// An unreadable message that looked like an answer (bad UTF-8, too deep, over the size limit) is
// delivered as a decode_failure whose reply_expected is false, never dropped: the dispatcher
// fails the request it answers. Text that shows no sign of being an answer may be logged and
// skipped (stdio banners).
// A transport-specific concern (HTTP session ids, headers, resumption) stays inside the
// implementation; set_protocol_version() tells it the negotiated MCP version, which HTTP
// transports must echo in a header.
//
// Thread-safety: start(), send(), close() and the accessors may be called from any thread.
// send() never blocks: it queues, and a write failure closes the transport.
// Throws: start() throws transport_error when the channel cannot be opened (e.g. the command of a
// child process does not exist); send() throws transport_error once the transport is closing or
// closed, or before start(). Calling start() twice is a logic error (std::logic_error).
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

#include "ipybox/mcp/jsonrpc/codec.hpp"

namespace ipybox::mcp::transport {

struct close_info {
    std::string reason;            // e.g. "stdin reached end of file", "... exited with status 3"
    bool requested = false;        // true when close() on our side initiated it
    std::optional<int> exit_code;  // child processes: the exit status, when it exited normally
    std::optional<int> signal;     // child processes: the signal that killed it
};

class transport_error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class transport : public std::enable_shared_from_this<transport> {
  public:
    using message_handler = std::function<void(jsonrpc::decode_result)>;
    using close_handler = std::function<void(const close_info&)>;
    using activity_handler = std::function<void()>;

    virtual ~transport();

    void start(message_handler on_message, close_handler on_close,
               activity_handler on_activity = nullptr);
    void send(jsonrpc::message msg);
    // Begins an orderly close; on_close follows asynchronously. Idempotent.
    void close();

    bool is_open() const;  // started and neither closing nor closed
    virtual void set_protocol_version(const std::string& version);
    // Our side gave up on request `id` (timed out, cancelled): stop waiting for its answer where
    // the transport can (an HTTP exchange that carries it is closed). Default: nothing to do, the
    // channel is shared. Any thread; never throws.
    virtual void abandon_request(const jsonrpc::request_id& id);
    // Names the peer for logs and error messages, e.g. "MCP server 'everything' (pid 4242)".
    virtual std::string describe() const = 0;

  protected:
    transport() = default;

    // For implementations, from any thread: hand a frame to on_message (dropped after closing),
    // and report the end of the channel (only the first report counts).
    void deliver(jsonrpc::decode_result incoming);
    void report_closed(close_info info);
    void report_activity() const;

  private:
    virtual void do_start() = 0;
    virtual void do_send(jsonrpc::message msg) = 0;
    virtual void do_close() = 0;

    enum class state { created, open, closing, closed };
    mutable std::mutex mutex_;
    state state_ = state::created;
    message_handler on_message_;
    close_handler on_close_;
    activity_handler on_activity_;  // set before do_start(), never changed: read without the lock
};

}  // namespace ipybox::mcp::transport
