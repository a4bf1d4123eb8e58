#pragma once
// The JSON-RPC dispatcher: turns a duplex message channel into an outbound API (requests with id
// correlation, timeouts, cancellation, progress) and an inbound pump (requests and notifications
// routed by method name to handlers).
//
// It knows method names only as strings, with two exceptions it owns because they are about
// requests rather than about any one method: `notifications/cancelled` (sent on timeout or
// cancellation of our requests, delivered to the cancellation token of the peer's request) and
// `notifications/progress` (routed to the caller of the request whose progressToken it names).
//
// It is THE place where exceptions become wire errors: a handler that throws `jsonrpc_error`
// answers with that error's code, message and data; any other std::exception answers -32603 with
// its message; anything else -32603 "unknown exception". A request for a method without a handler
// is answered -32601. Malformed input the transport could not decode is answered -32700/-32600
// (unless it looked like a response).
//
// Threading: thread-safe. Every public member may be called from any thread. The send function
// must be thread-safe too; it is called outside the dispatcher's lock. Handlers and progress
// callbacks run on the thread that calls receive() (the io_context thread for our transports);
// they must not block. Completions of outgoing requests are always posted to the io_context; one
// that throws is logged, not propagated out of io_context::run().
//
// Lifetime: create() returns a shared_ptr; timers and responders hold weak references, so
// destroying the dispatcher is safe at any time. Destruction or close() fails pending requests
// with `connection_closed` and cancels the tokens of incoming requests.
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "ipybox/mcp/jsonrpc/cancellation.hpp"
#include "ipybox/mcp/jsonrpc/codec.hpp"
#include "ipybox/mcp/jsonrpc/completion.hpp"
#include "ipybox/mcp/jsonrpc/message.hpp"

namespace ipybox::mcp::jsonrpc {

struct progress_update {
    double progress = 0;
    std::optional<double> total;
    std::string message;  // empty when absent
};

// Deadlines. `timeout` is the longest wait for the answer without a sign of life; the signs that
// restart it are opted into below (progress notifications naming the request; bytes of a message
// still arriving, as the transport reports them through note_activity()). `max_duration` bounds
// the whole request whatever arrives: an answer trickling in at 2 bytes a second, or progress
// that never ends, still fails when it is reached. Either failure is `request_timeout`.
struct request_options {
    // nullopt: the dispatcher's default; zero: no timeout.
    std::optional<std::chrono::milliseconds> timeout;
    // nullopt: the dispatcher's default; zero: no total limit.
    std::optional<std::chrono::milliseconds> max_duration;
    // Cancelling sends notifications/cancelled and fails the request with `request_cancelled`.
    cancellation_token cancellation;
    // When set, params._meta.progressToken is added and matching progress notifications are
    // delivered here (on the receiving thread) until the request completes.
    std::function<void(const progress_update&)> on_progress;
    // Each progress notification restarts the timeout (for long operations that report).
    bool progress_resets_timeout = false;
    // Bytes of a message still arriving on the connection keep the request alive (a large answer
    // on a slow link). Whose message it is shows only once it is complete, so the credit is
    // provisional: a message that completes as anything but this request's answer (another
    // answer, a notification, progress for another request) withdraws it, and the timeout counts
    // again from the request's last real sign of life (its start, its own progress). A message
    // that begins after that timeout has passed earns no credit. So a peer that trickles
    // notifications in pieces does not hold the request beyond its timeout. Where answers to
    // concurrent requests arrive on separate streams (Streamable HTTP), a message completing on
    // another stream withdraws the credit of bytes still arriving on this one too: a request
    // whose own answer trickles for longer than its timeout while other messages complete can
    // then fail by its timeout (its bytes count again only if they resume before it passes).
    bool activity_resets_timeout = false;
};

struct dispatcher_options {
    std::chrono::milliseconds default_timeout = std::chrono::seconds(60);
    std::chrono::milliseconds default_max_duration{0};  // zero: no total limit
    std::string name = "jsonrpc";   // prefix of log lines, e.g. "server" or "client everything"
    std::string peer = "the peer";  // for error messages, e.g. "MCP server 'everything'"
    // Called (outside any lock) when a request of ours ends without its answer because it timed
    // out or was cancelled, so that the transport can stop waiting for it (e.g. close the HTTP
    // exchange that carries it). Must not throw.
    std::function<void(std::int64_t id)> on_abandon;
};

class dispatcher;

namespace detail {
struct incoming_state;
}

// The one way to answer an incoming request. Copyable handle, usable from any thread, answers
// exactly once: the first reply wins, later ones are ignored (and logged). If every copy is
// dropped without a reply, the peer receives -32603 "... finished without replying". After the
// peer cancelled the request, or the connection closed, replies are silently dropped (MCP: a
// cancelled request gets no response).
class responder {
  public:
    const request_id& id() const;
    bool finished() const;

    void reply(json result) const;
    void reply_error(error_object error) const;
    // Applies the dispatcher's exception mapping (see the header comment).
    void reply_exception(std::exception_ptr error) const;

    // Sends notifications/progress if the request carried a progressToken and is not finished.
    void report_progress(const progress_update& update) const;
    bool wants_progress() const;

  private:
    friend class dispatcher;
    explicit responder(std::shared_ptr<detail::incoming_state> state);
    std::shared_ptr<detail::incoming_state> state_;
};

struct incoming_request {
    request_id id;
    std::string method;
    json params;                      // null when absent
    cancellation_token cancellation;  // fires on notifications/cancelled or connection close
};

using request_handler = std::function<void(const incoming_request&, responder)>;
using notification_handler = std::function<void(const notification&)>;

class dispatcher : public std::enable_shared_from_this<dispatcher> {
  public:
    using send_function = std::function<void(message)>;

    // `send` delivers one message to the peer; it may throw (e.g. transport closed), which fails
    // the request being sent with `connection_closed`.
    static std::shared_ptr<dispatcher> create(boost::asio::io_context& io, send_function send,
                                              dispatcher_options options = {});
    ~dispatcher();

    dispatcher(const dispatcher&) = delete;
    dispatcher& operator=(const dispatcher&) = delete;

    // Registers (or replaces) the handler of a method. Handlers may throw; see the header comment.
    void on_request(const std::string& method, request_handler handler);
    void on_notification(const std::string& method, notification_handler handler);

    // Sends a request; `done` receives the result, or a `request_failed` subclass:
    // remote_error, request_timeout, request_cancelled, connection_closed, unreadable_answer.
    //
    // Unreadable answers (a decode_failure whose reply_expected is false: it looked like a
    // response) never leave a request pending: the request whose id the failure names fails
    // with unreadable_answer; when no id could be read, every request pending on this
    // connection fails with it (they share the channel that could not be read; a later answer to
    // one of them is then dropped). An unreadable message that does not look like a response is
    // answered -32700/-32600 as above and fails nothing.
    void send_request(const std::string& method, json params, request_options options,
                      completion<json> done);
    // Fire and forget; failures to send are logged.
    void send_notification(const std::string& method, json params = nullptr);

    // Transport side: one decoded message (or decode failure) from the peer.
    void receive(decode_result incoming);
    // Transport side: the channel is gone. Idempotent; the first reason is kept.
    void close(const std::string& reason);
    // Transport side: bytes of a message still in transit arrived (see activity_resets_timeout).
    // Cheap (one atomic store); any thread.
    void note_activity();

    bool closed() const;
    std::size_t pending_requests() const;
    std::size_t active_incoming_requests() const;
    boost::asio::io_context& io() const { return io_; }

  private:
    struct impl;
    friend struct detail::incoming_state;
    friend class responder;
    dispatcher(boost::asio::io_context& io, send_function send, dispatcher_options options);

    // Sends the answer unless the request was cancelled or the connection closed.
    bool finish_incoming(const request_id& id, message answer);
    void handle_request(request req);
    void handle_notification(notification note);
    void handle_response(const request_id& id, std::exception_ptr error, json result);
    void on_timer(std::int64_t id, std::uint64_t generation);
    void fail_unreadable_answer(const decode_failure& failure);
    void fail_pending(std::int64_t id, std::exception_ptr error, bool notify_peer,
                      const std::string& cancel_reason);
    void arm_timer(std::int64_t id);
    // A complete message arrived: the bytes in transit were that message's (see
    // activity_resets_timeout); the timers their credit moved are armed again.
    void end_transit();
    void abandon(std::int64_t id);
    void send_quietly(message msg);

    boost::asio::io_context& io_;
    std::unique_ptr<impl> impl_;
};

}  // namespace ipybox::mcp::jsonrpc
