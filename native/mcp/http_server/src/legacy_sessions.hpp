#pragma once
// The 2025-11-25 side of the endpoint: sessions that an initialize POST opens and that later
// POSTs name by Mcp-Session-Id. Each session is one server_session over a session_channel, which
// routes what the session sends to the POST it belongs to: an answer to the exchange of its
// request, progress to the exchange whose request holds the token, anything else (our
// elicitation/create while a tool runs) to the oldest exchange still open, else it is dropped
// (there is no standalone GET stream).
//
// A session belongs to the principal that opened it: under another principal its id is unknown.
// Sessions end by DELETE, when idle (no open exchange) longer than the idle limit, or when the
// server stops. A client whose stream closes mid-request has that request cancelled, as if it
// had sent notifications/cancelled: no answer could reach it (we keep no event ids to resume).
//
// Thread-safety: every member may be called from any thread.
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "exchange.hpp"
#include "ipybox/mcp/http_server/http_server.hpp"
#include "ipybox/mcp/session/server_session.hpp"
#include "ipybox/mcp/transport/transport.hpp"

namespace ipybox::mcp::http_server::detail {

class session_channel : public transport::transport {
  public:
    explicit session_channel(std::string session_id) : session_id_(std::move(session_id)) {}

    // A POSTed message; `sink` is the POST's exchange when the message is a request.
    void post(jsonrpc::message msg, std::shared_ptr<exchange> sink);
    // The stream of request `id` closed before its answer: the request is cancelled.
    void stream_gone(const jsonrpc::request_id& id);
    bool has_open_exchanges() const;
    std::string describe() const override { return "HTTP session " + session_id_.substr(0, 8); }

  private:
    void do_start() override {}
    void do_send(jsonrpc::message msg) override;
    void do_close() override;
    void forget(const jsonrpc::request_id& id);  // caller holds mutex_

    std::string session_id_;
    mutable std::mutex mutex_;
    std::vector<std::shared_ptr<exchange>> open_;          // in the order their requests arrived
    std::map<std::string, jsonrpc::request_id> progress_;  // token (as JSON text) -> request
};

struct legacy_session {
    std::string id;
    std::string principal;
    std::shared_ptr<session_channel> channel;
    std::shared_ptr<session::server_session> session;
    std::chrono::steady_clock::time_point last_used;
};

class legacy_sessions {
  public:
    legacy_sessions(std::size_t max_sessions, std::chrono::milliseconds idle_limit,
                    session_factory factory);

    // A new session for `caller`, started; nullptr when max_sessions are open.
    std::shared_ptr<legacy_session> open(const client_identity& caller);
    // The session `id` of `principal`, marked used; nullptr when unknown or another's.
    std::shared_ptr<legacy_session> find(const std::string& id, const std::string& principal);
    // Ends the session; false when unknown or another's.
    bool close(const std::string& id, const std::string& principal);
    // Ends sessions idle past the limit; returns how many.
    std::size_t reap_idle();
    void close_all();
    std::size_t size() const;

  private:
    std::size_t max_sessions_;
    std::chrono::milliseconds idle_limit_;
    session_factory factory_;
    mutable std::mutex mutex_;
    std::map<std::string, std::shared_ptr<legacy_session>> sessions_;
};

}  // namespace ipybox::mcp::http_server::detail
