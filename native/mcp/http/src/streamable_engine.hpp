#pragma once
// The I/O engine behind streamable_http_transport (see its header for the behaviour). POSTs and
// their response streams live in streamable_engine.cpp; GET streams (listening, resumption) and
// the DELETE on close in streamable_streams.cpp.
#include <deque>
#include <map>
#include <set>

#include "engine_base.hpp"

namespace ipybox::mcp::http::detail {

class streamable_engine final : public engine_base {
  public:
    streamable_engine(boost::asio::io_context& io, http_transport_options options, url endpoint);

    // Thread-safe: each posts to the strand.
    void send(std::string body, std::optional<jsonrpc::request_id> id);
    void close();
    // Thread-safe: posts to the strand. Cancels the exchange that carries the answer to `id`
    // (its POST or the GET resuming its stream); nothing more is delivered for it.
    void abandon_request(const jsonrpc::request_id& id);
    // Thread-safe.
    void set_protocol_version(const std::string& version);
    std::optional<std::string> session_id() const;

  private:
    struct outgoing {
        std::string body;
        std::optional<jsonrpc::request_id> id;  // set for requests
    };

    // Registers the exchange carrying the answer to a request for abandon_request(), while it
    // lives. Strand only.
    class carrier {
      public:
        carrier(streamable_engine& engine, const std::optional<jsonrpc::request_id>& id,
                const lease& exchange);
        ~carrier();
        carrier(const carrier&) = delete;
        carrier& operator=(const carrier&) = delete;

      private:
        streamable_engine& engine_;
        std::optional<jsonrpc::request_id> id_;
    };

    // Starts queued POSTs in order; see the ordering rule in streamable_http_transport.hpp.
    void pump();
    asio::awaitable<void> post(outgoing message);
    asio::awaitable<void> follow_post_stream(connection& exchange,
                                             std::optional<jsonrpc::request_id> id);
    // A JSON response body, or nullopt (the exchange cancelled) when it passes the size limit.
    asio::awaitable<std::optional<std::string>> read_json_body(connection& exchange);
    void on_exchange_failure(const exchange_failure& failure,
                             const std::optional<jsonrpc::request_id>& id, const char* what);

    // A GET stream: listening when `awaiting` is empty, else resuming the stream that should
    // carry the response to `awaiting`. Reopens per the resumption rules until done.
    asio::awaitable<void> get_stream(std::optional<jsonrpc::request_id> awaiting,
                                     std::string last_event_id,
                                     std::optional<std::chrono::milliseconds> retry,
                                     bool wait_first);
    void maybe_listen();
    asio::awaitable<void> terminate_session();

    request_type make(bhttp::verb method, std::string body = {},
                      const std::string& last_event_id = {}) const;
    // Remembers the session id of the first response that carries one. False (after failing the
    // transport) when it is not a valid session id.
    bool capture_session_id(const connection& exchange);
    bool session_expired(unsigned status, bool sent_session_id);
    // Delivers the message of `event`; true when it is the response to `awaiting`.
    bool take_event(const sse_event& event, const std::optional<jsonrpc::request_id>& awaiting);

    mutable std::mutex mutex_;  // guards the two strings below
    std::optional<std::string> session_id_;
    std::string protocol_version_;

    std::deque<outgoing> queue_;
    bool barrier_busy_ = false;        // a notification or response POST awaits its answer
    std::size_t unsent_requests_ = 0;  // request POSTs started but not yet written
    bool listening_ = false;
    std::map<jsonrpc::request_id, std::shared_ptr<connection>> carriers_;
    std::set<jsonrpc::request_id> abandoned_;  // given up by our side while still carried
};

}  // namespace ipybox::mcp::http::detail
