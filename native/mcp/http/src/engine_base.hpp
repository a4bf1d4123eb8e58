#pragma once
// What both HTTP transports' I/O engines share: the strand, the connections and timers in flight
// (so close() can cancel them all), coroutine spawning with a logged failure boundary, reading an
// SSE body into messages, and the hand-off to the owning transport object.
//
// The engine outlives its transport object when needed (a DELETE after the owner let go): the
// owner holds the engine, spawned coroutines hold the engine, and the engine reaches the owner
// only through the callbacks given to attach(), which hold it weakly.
// Not thread-safe unless stated: members run on the strand.
#include <spdlog/logger.h>

#include <functional>
#include <mutex>
#include <set>

#include "connection.hpp"
#include "ipybox/mcp/http/http_transport_options.hpp"
#include "ipybox/mcp/http/sse_parser.hpp"
#include "ipybox/mcp/transport/transport.hpp"

namespace ipybox::mcp::http::detail {

struct owner_callbacks {
    std::function<void(jsonrpc::decode_result)> deliver;
    std::function<void(mcp::transport::close_info)> closed;
    std::function<void()> activity;  // bytes arrived and a message is still in transit
};

// "MCP server 'name' (url)" or "MCP server at url"; the query is left out (it may hold a token).
std::string describe_server(const std::string& name, const url& target);

class engine_base : public std::enable_shared_from_this<engine_base> {
  public:
    engine_base(boost::asio::io_context& io, http_transport_options options, url target);
    virtual ~engine_base() = default;

    // Once, before any I/O. Thread-safe with respect to nothing else.
    void attach(owner_callbacks callbacks) { callbacks_ = std::move(callbacks); }
    const std::string& description() const { return description_; }

  protected:
    class lease;  // a registered connection, unregistered when the lease ends

    // Runs `task` on the strand; an exception escaping it is logged, never propagated.
    void spawn(asio::awaitable<void> task, std::string what);
    // Waits on the strand; false when cancelled by cancel_all() or when closing.
    asio::awaitable<bool> sleep(std::chrono::milliseconds duration);
    // The body of an error response, for messages; empty when it cannot be read.
    asio::awaitable<std::string> read_error_body(connection& exchange);
    // Reads an SSE body to its end. `on_event` returns false to stop after the current chunk.
    // An event over the size limit that looked like an answer is delivered as a decode failure
    // (see unusable_answer). Throws exchange_failure.
    asio::awaitable<void> read_events(connection& exchange, sse_parser& parser,
                                      std::function<bool(const sse_event&)> on_event,
                                      const std::optional<jsonrpc::request_id>& awaiting = {});
    // The JSON-RPC message in an SSE `message` event; nullopt (logged) for other events, empty
    // data (priming events) and text that is not JSON and shows no sign of being an answer.
    std::optional<jsonrpc::decode_result> decode_event(
        const sse_event& event, const std::optional<jsonrpc::request_id>& awaiting = {});
    // What to do with a message that could not be read: nullopt (logged) unless it looked like
    // an answer; then the failure, its id filled in with `awaiting` (the request whose stream
    // carried it) when it could not be read from the text.
    std::optional<jsonrpc::decode_result> unusable_answer(
        jsonrpc::decode_failure failure, const std::optional<jsonrpc::request_id>& awaiting,
        std::string_view excerpt);
    void report_activity();

    void deliver(jsonrpc::decode_result incoming);
    // Ends the transport because of `reason` (not requested): cancels everything, reports once.
    void fail(const std::string& reason);
    // Reports a requested close (after any farewell request).
    void report_requested_close();
    void cancel_all();

    strand_type strand_;
    http_transport_options options_;
    url target_;
    std::shared_ptr<asio::ssl::context> tls_;
    std::shared_ptr<spdlog::logger> log_;
    bool closing_ = false;

  private:
    std::string description_;
    owner_callbacks callbacks_;
    std::set<std::shared_ptr<connection>> active_;
    std::set<std::shared_ptr<asio::steady_timer>> sleepers_;
    bool reported_ = false;
};

class engine_base::lease {
  public:
    lease(engine_base& engine, const url& target, exchange_limits limits);
    ~lease();
    lease(const lease&) = delete;
    lease& operator=(const lease&) = delete;

    connection& operator*() const { return *connection_; }
    connection* operator->() const { return connection_.get(); }
    const std::shared_ptr<connection>& shared() const { return connection_; }

  private:
    engine_base& engine_;
    std::shared_ptr<connection> connection_;
};

}  // namespace ipybox::mcp::http::detail
