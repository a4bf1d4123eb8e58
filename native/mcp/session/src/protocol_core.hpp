#pragma once
// The part of an MCP session that does not depend on its role, written once for client_session
// and server_session (as the MCP SDKs' Protocol class is): the transport and the JSON-RPC
// dispatcher over it, the lifecycle, the close path, and outgoing requests checked against the
// capabilities the peer declared in initialize.
//
// Lifecycle: created → initializing → ready → closed. The role moves it forward (the client when
// it sends initialize and when the answer is good; the server when it answers initialize);
// closed is final and is reached by close(), by the transport ending, or by destruction.
//
// Outgoing requests: before ready they are a logic error (a broken call order); a method that
// needs a capability the peer did not declare (capability_rules.hpp) fails with
// capability_not_declared, without being sent.
//
// Threading: every member may be called from any thread. Lifetime: the role owns the core; the
// transport's callbacks hold it weakly, so they never keep a session alive.
#include <spdlog/spdlog.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "capability_rules.hpp"
#include "ipybox/mcp/jsonrpc/completion.hpp"
#include "ipybox/mcp/jsonrpc/dispatcher.hpp"
#include "ipybox/mcp/session/types.hpp"
#include "ipybox/mcp/transport/transport.hpp"

namespace ipybox::mcp::session::detail {

enum class phase { created, initializing, ready, closed };

struct protocol_options {
    sender role = sender::client;  // the side this core sends requests from
    std::string name;              // label for logs
    std::chrono::milliseconds request_timeout{0};
    std::chrono::milliseconds max_request_duration{0};  // zero: no total limit
    std::string peer;  // for error messages: "MCP server 'x'" or "the MCP client"
    spdlog::level::level_enum close_log_level = spdlog::level::debug;
    // The owner's callback, once, after the dispatcher has failed what was pending.
    std::function<void(const transport::close_info&)> on_closed;
};

// The core's options from a role's options (client_options and server_options both have a
// name, a request_timeout and an on_closed callback).
template <class RoleOptions>
protocol_options protocol_options_for(sender role, const RoleOptions& options,
                                      spdlog::level::level_enum close_log_level) {
    const auto peer = role == sender::client ? "MCP server '" + options.name + "'"
                                             : std::string("the MCP client");
    return {role, options.name,    options.request_timeout, std::chrono::milliseconds(0),
            peer, close_log_level, options.on_closed};
}

class protocol_core : public std::enable_shared_from_this<protocol_core> {
  public:
    static std::shared_ptr<protocol_core> create(boost::asio::io_context& io,
                                                 std::shared_ptr<transport::transport> channel,
                                                 protocol_options options);
    // Fails what is pending with connection_closed and closes the transport.
    ~protocol_core();

    protocol_core(const protocol_core&) = delete;
    protocol_core& operator=(const protocol_core&) = delete;

    // Starts the transport: frames go to the dispatcher; its end goes to the close path. Throws
    // what transport::start throws, after moving to closed.
    void start();
    // Orderly close: pending requests fail with connection_closed("<reason>").
    void close(const std::string& reason);

    phase current() const;
    // Moves from `from` to `to`; false (and no change) when the phase is not `from`.
    bool advance(phase from, phase to);
    // What initialize settled: the protocol version (given to the transport too) and the peer's
    // capabilities object.
    void negotiated(const std::string& protocol_version, json peer_capabilities);
    std::string protocol_version() const;  // empty before initialize
    json peer_capabilities() const;        // {} before initialize
    bool peer_supports(const std::string& capability) const;

    // Throws std::logic_error before ready (initialize itself goes through send_initialize).
    void send_request(const std::string& method, json params, jsonrpc::request_options options,
                      jsonrpc::completion<json> done);
    // The one request allowed before ready, sent without a capability check.
    void send_initialize(json params, jsonrpc::request_options options,
                         jsonrpc::completion<json> done);
    void notify(const std::string& method, json params = nullptr);
    void on_request(const std::string& method, jsonrpc::request_handler handler);
    void on_notification(const std::string& method, jsonrpc::notification_handler handler);

    const std::string& name() const { return options_.name; }
    spdlog::logger& log() const { return *log_; }

  private:
    protocol_core(boost::asio::io_context& io, std::shared_ptr<transport::transport> channel,
                  protocol_options options);
    void transport_closed(const transport::close_info& info);

    std::shared_ptr<transport::transport> channel_;
    std::shared_ptr<jsonrpc::dispatcher> dispatcher_;
    protocol_options options_;
    std::shared_ptr<spdlog::logger> log_;

    mutable std::mutex mutex_;
    phase phase_ = phase::created;
    std::string protocol_version_;
    json peer_capabilities_ = json::object();
};

}  // namespace ipybox::mcp::session::detail
