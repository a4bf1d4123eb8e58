#pragma once
// Our MCP server: answers one client (Claude Code over stdio, or a test) on any transport.
//
// Dual-era (request_meta.hpp), decided per request from its params._meta:
// - Legacy (2025-11-25 and earlier): initialize (the requested protocol version if we speak it,
//   else our latest), ping, logging/setLevel, tools/list (from the registry, paginated when
//   tools_page_size > 0) and tools/call. Requests other than initialize and ping before
//   initialize are refused (-32600). A client that never sends notifications/initialized is
//   served anyway (logged once).
// - Modern (2026-07-28): server/discover, tools/list and tools/call, each served on its own
//   whatever came before (no initialize needed); its results carry resultType "complete" and
//   our serverInfo in _meta, tools/list adds ttlMs and cacheScope. A malformed or unsupported
//   _meta is -32602 / -32022 (read_request_meta); a method 2026-07-28 removed (initialize,
//   ping, logging/setLevel) is -32601; server/discover without a modern _meta is -32602.
//   With server_options::eras legacy_only, only server/discover is served in this era.
//
// tools/call: an unknown tool or malformed params is a JSON-RPC error (-32602). The handler is a
// coroutine; its result is sent as is. If it throws jsonrpc::jsonrpc_error, the client receives
// that JSON-RPC error (the dispatcher maps it); any other exception means the tool ran and failed:
// the client receives a result with isError: true and the exception's message as text.
// Arguments are not validated against input_schema here; handlers check what they use. A copy of
// the handler lives until its coroutine completes, so a lambda coroutine's captures stay valid.
//
// Threading: thread-safe; every member may be called from any thread. Tool coroutines are spawned
// on the io_context. Call order: create() → add_tool()... → start() → ... → close().
#include <boost/asio/io_context.hpp>

// clang-format off
#include <utility>  // Boost 1.74's awaitable.hpp uses std::exchange without including <utility>
#include <boost/asio/awaitable.hpp>
// clang-format on

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "ipybox/mcp/jsonrpc/completion.hpp"
#include "ipybox/mcp/jsonrpc/dispatcher.hpp"
#include "ipybox/mcp/session/raw_request.hpp"
#include "ipybox/mcp/session/request_meta.hpp"
#include "ipybox/mcp/session/types.hpp"
#include "ipybox/mcp/transport/transport.hpp"

namespace ipybox::mcp::session {

class server_session;

// What a tool handler knows about the request it serves. Copyable; usable from any thread.
class request_context {
  public:
    request_context(jsonrpc::request_id id, jsonrpc::cancellation_token cancellation,
                    jsonrpc::responder responder, std::optional<request_meta> modern = std::nullopt,
                    std::weak_ptr<server_session> session = {});

    // The request's 2026-07-28 fields; nullopt for a legacy request (served within a session
    // that answered initialize). A modern request cannot be sent server-to-client requests.
    const std::optional<request_meta>& modern() const { return modern_; }
    // The session that serves the request (for elicitation); null once it is gone.
    std::shared_ptr<server_session> session() const { return session_.lock(); }

    const jsonrpc::request_id& request_id() const { return id_; }
    // Fires when the client sends notifications/cancelled or the connection closes. The answer
    // is then dropped whatever the handler returns; stopping early saves work.
    const jsonrpc::cancellation_token& cancellation() const { return cancellation_; }
    // notifications/progress to the client, if it asked for progress (else a no-op).
    void report_progress(double progress, std::optional<double> total = std::nullopt,
                         std::string message = {}) const;
    bool wants_progress() const;

    // A 2026-07-28 tools/call that retries after an input_required result: the client's answers
    // by the keys of its inputRequests (null when none came) and the requestState it echoes
    // (attacker-controlled until the tool has verified it). Both absent for a first call and for
    // every legacy request.
    const json& input_responses() const { return input_responses_; }
    const std::optional<std::string>& request_state() const { return request_state_; }
    // Takes both from a modern request's params (shapes only: an object, a string); throws
    // jsonrpc::jsonrpc_error (invalid params) for others. A legacy request keeps neither.
    void read_retry(const json& params);

  private:
    jsonrpc::request_id id_;
    jsonrpc::cancellation_token cancellation_;
    jsonrpc::responder responder_;
    std::optional<request_meta> modern_;
    std::weak_ptr<server_session> session_;
    json input_responses_;
    std::optional<std::string> request_state_;
};

using tool_handler =
    std::function<boost::asio::awaitable<call_tool_result>(json arguments, request_context)>;

struct server_options {
    implementation_info server_info{"ipybox", "", std::nullopt};  // empty version: ours
    std::string instructions;                                     // omitted when empty
    std::size_t tools_page_size = 0;  // 0: every tool in one tools/list page
    std::chrono::milliseconds request_timeout = std::chrono::seconds(60);  // ours to the client
    std::string name = "server";                                           // label for logs
    // legacy_only: 2026-07-28 requests are refused (-32022) but server/discover, which then
    // offers only the legacy revisions (request_meta.hpp). ipybox's stdio uses it while it cannot
    // ask a modern client for an approval (no MRTR): Claude Code goes modern over stdio when
    // server/discover offers 2026-07-28, and falls back to initialize when it does not.
    served_eras eras = served_eras::legacy_and_modern;
    // Called once when the connection ends (stdin EOF, close()), on the io_context.
    std::function<void(const transport::close_info&)> on_closed;
};

class server_session : public std::enable_shared_from_this<server_session> {
  public:
    static std::shared_ptr<server_session> create(boost::asio::io_context& io,
                                                  std::shared_ptr<transport::transport> channel,
                                                  server_options options = {});
    ~server_session();

    server_session(const server_session&) = delete;
    server_session& operator=(const server_session&) = delete;

    // Registers or replaces a tool. Once initialized, the client is told (tools/list_changed).
    void add_tool(tool_descriptor descriptor, tool_handler handler);
    bool remove_tool(const std::string& name);

    // Starts the transport; returns at once. Throws transport::transport_error.
    void start();
    // Orderly close; in-flight tool calls see their cancellation token fire.
    void close();

    bool is_initialized() const;           // initialize answered
    std::string protocol_version() const;  // empty before initialize
    implementation_info client_info() const;
    json client_capabilities() const;  // {} before initialize
    // True when the client declared the top-level capability, e.g. "elicitation", "roots".
    bool client_supports(const std::string& capability) const;
    std::string log_level() const;  // from logging/setLevel; "info" until set

    // Server-to-client request (e.g. elicitation/create); completes with the raw result or a
    // jsonrpc::request_failed, like client_session operations (capability_not_declared when the
    // client did not declare what the method needs, e.g. "elicitation").
    template <class Token>
    auto request(std::string method, json params, jsonrpc::request_options options, Token&& token) {
        return detail::initiate_raw_request(io_, shared_from_this(), &server_session::start_request,
                                            std::move(method), std::move(params),
                                            std::move(options), std::forward<Token>(token));
    }
    void notify(const std::string& method, json params = nullptr);

  private:
    server_session(boost::asio::io_context& io, std::shared_ptr<transport::transport> channel,
                   server_options options);

    void register_handlers();
    void start_request(const std::string& method, json params, jsonrpc::request_options options,
                       jsonrpc::completion<json> done);
    json answer_initialize(const json& params);
    json answer_discover() const;
    json answer_tools_list(const json& params, bool modern) const;
    void serve_tools_call(const jsonrpc::incoming_request& request,
                          const jsonrpc::responder& responder);

    struct state;
    boost::asio::io_context& io_;
    std::unique_ptr<state> state_;
};

}  // namespace ipybox::mcp::session
