#pragma once
// Our MCP client: one connection to one downstream server over any transport.
//
// Call order: create() → initialize() → list_tools() / call_tool() / ping() / request() any
// number of times, concurrently → close() (or destruction). Operations other than initialize()
// before initialize() has completed throw std::logic_error (a broken call order, not a failure).
//
// Asynchronous operations take an Asio completion token (callback `void(std::exception_ptr, T)`,
// `asio::use_awaitable`, `asio::use_future`; see jsonrpc/completion.hpp). Every failure is a
// `jsonrpc::request_failed`:
//   remote_error        the server answered with a JSON-RPC error (e.g. unknown tool: -32602)
//   request_timeout     no answer in time (see the deadlines in client_options)
//   unreadable_answer   the answer arrived but could not be read (invalid UTF-8, nested too
//                       deep, over the transport's size limit, not a valid response)
//   request_cancelled   the caller's cancellation token fired
//   connection_closed   the transport closed or could not be started; reason says why, e.g.
//                       "MCP server 'x' (pid 7) exited with status 3; last stderr lines: ..."
//   protocol_error, unsupported_protocol_version   the server broke the protocol
//   capability_not_declared   not sent: the server did not declare the capability the method
//                       needs ("tools" for list_tools and call_tool; see capability_rules.hpp)
// A tool that ran and failed is not a failure here: call_tool yields is_error = true.
//
// Threading: thread-safe; every member may be called from any thread. Completion handlers run on
// their associated executor (default: the io_context). Handlers registered with on_request /
// on_notification run on the io_context thread that received the message.
// Lifetime: create() returns a shared_ptr that the owner keeps while it uses the session; pending
// operations do not keep it alive. Destruction fails pending operations with connection_closed
// and closes the transport (an orderly stdio shutdown continues on the io_context).
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ipybox/mcp/jsonrpc/completion.hpp"
#include "ipybox/mcp/jsonrpc/dispatcher.hpp"
#include "ipybox/mcp/session/raw_request.hpp"
#include "ipybox/mcp/session/types.hpp"
#include "ipybox/mcp/transport/transport.hpp"

namespace ipybox::mcp::session {

// Deadlines: every request we send has two (jsonrpc::request_options). A timeout, the longest
// wait without a sign of life, where bytes of a message still arriving count as one (and, for
// tools/call, progress notifications): a large answer on a slow link is not cut off. And a total
// limit that nothing extends: an answer trickling at 2 bytes a second, or a server that reports
// progress forever, fails when it is reached, with request_timeout naming it.
//   initialize               connect_timeout, total
//   tools/list               request_timeout per page; max_list_duration for the whole
//                            listing, all pages together (and what came before it, when the
//                            caller says so: list_options::started). Short by default: a
//                            listing is what a person waits for (registering a server,
//                            generating its API), and a server that trickles its list or keeps
//                            it alive with notifications must not hold them for long.
//   tools/call               call_timeout (default request_timeout); max_call_duration
//   ping, request()          request_timeout; max_request_duration
// The session's end is bounded by the transport (stdio: stdin close, SIGTERM, SIGKILL after its
// grace periods; HTTP: the DELETE's own deadline).
struct client_options {
    implementation_info client_info{"ipybox", "", std::nullopt};  // empty version: ours
    json capabilities = json::object();  // e.g. {"elicitation": {}} once we answer elicitation
    std::chrono::milliseconds connect_timeout = std::chrono::seconds(10);  // initialize
    std::chrono::milliseconds request_timeout = std::chrono::seconds(60);  // default per request
    std::chrono::milliseconds max_request_duration = std::chrono::minutes(10);
    std::chrono::milliseconds max_list_duration = std::chrono::minutes(1);
    // How a user raises max_list_duration, named in the error when it is reached, e.g.
    // "\"timeouts\": {\"max_list\": seconds} in the server's parameters".
    std::string max_list_setting = "the listing's total limit";
    std::optional<std::chrono::milliseconds> call_timeout;  // nullopt: request_timeout
    std::chrono::milliseconds max_call_duration = std::chrono::hours(1);
    std::string name = "client";  // label for logs, e.g. the server's configured name
    // Called once when the connection ends (server exit, close()), on the io_context.
    std::function<void(const transport::close_info&)> on_closed;
};

// What the server said in its initialize result.
struct server_description {
    std::string protocol_version;
    implementation_info server_info;
    json capabilities = json::object();
    std::string instructions;
};

struct list_options {
    jsonrpc::cancellation_token cancellation;
    // When the listing began, if before the call (a caller that had to start the session
    // first): max_list_duration counts from here. nullopt: from the call.
    std::optional<std::chrono::steady_clock::time_point> started;
};

struct call_options {
    std::optional<std::chrono::milliseconds> timeout;       // default: client_options.call_timeout
    std::optional<std::chrono::milliseconds> max_duration;  // default: max_call_duration
    std::function<void(const jsonrpc::progress_update&)> on_progress;  // asks for progress
    bool progress_resets_timeout = false;
    jsonrpc::cancellation_token cancellation;
};

class client_session : public std::enable_shared_from_this<client_session> {
  public:
    static std::shared_ptr<client_session> create(boost::asio::io_context& io,
                                                  std::shared_ptr<transport::transport> channel,
                                                  client_options options = {});
    ~client_session();

    client_session(const client_session&) = delete;
    client_session& operator=(const client_session&) = delete;

    // Starts the transport, negotiates the protocol version (offers 2025-11-25, accepts any of
    // supported_protocol_versions()), sends notifications/initialized. On failure (including
    // `cancellation` firing) the transport is closed. Completes with server_description. Calling
    // it twice is a logic error.
    template <class Token>
    auto initialize(jsonrpc::cancellation_token cancellation, Token&& token) {
        return jsonrpc::initiate<server_description>(
            io_, std::forward<Token>(token),
            [self = shared_from_this(), cancellation = std::move(cancellation)](
                jsonrpc::completion<server_description> done) mutable {
                self->start_initialize(std::move(cancellation), std::move(done));
            });
    }
    template <class Token>
    auto initialize(Token&& token) {
        return initialize(jsonrpc::cancellation_token(), std::forward<Token>(token));
    }

    // All tools, following nextCursor to the end: at most 1,000 pages, 10,000 tools and 64 MiB
    // of their JSON, and a repeated cursor ends it; past a bound the listing fails with
    // protocol_error. Past max_list_duration it fails with request_timeout naming the server,
    // the limit and max_list_setting. Completes with std::vector<tool_descriptor>.
    template <class Token>
    auto list_tools(list_options options, Token&& token) {
        return jsonrpc::initiate<std::vector<tool_descriptor>>(
            io_, std::forward<Token>(token),
            [self = shared_from_this(), options = std::move(options)](
                jsonrpc::completion<std::vector<tool_descriptor>> done) mutable {
                self->start_list_tools(std::move(options), std::move(done));
            });
    }
    template <class Token>
    auto list_tools(jsonrpc::cancellation_token cancellation, Token&& token) {
        return list_tools(list_options{std::move(cancellation), std::nullopt},
                          std::forward<Token>(token));
    }
    template <class Token>
    auto list_tools(Token&& token) {
        return list_tools(jsonrpc::cancellation_token(), std::forward<Token>(token));
    }

    // Completes with call_tool_result.
    template <class Token>
    auto call_tool(std::string name, json arguments, call_options options, Token&& token) {
        return jsonrpc::initiate<call_tool_result>(
            io_, std::forward<Token>(token),
            [self = shared_from_this(), name = std::move(name), arguments = std::move(arguments),
             options = std::move(options)](jsonrpc::completion<call_tool_result> done) mutable {
                self->start_call_tool(std::move(name), std::move(arguments), std::move(options),
                                      std::move(done));
            });
    }

    // Completes with the round-trip time.
    template <class Token>
    auto ping(Token&& token) {
        return jsonrpc::initiate<std::chrono::microseconds>(
            io_, std::forward<Token>(token),
            [self = shared_from_this()](jsonrpc::completion<std::chrono::microseconds> done) {
                self->start_ping(std::move(done));
            });
    }

    // Any request by method name; completes with the raw result.
    template <class Token>
    auto request(std::string method, json params, jsonrpc::request_options options, Token&& token) {
        return detail::initiate_raw_request(io_, shared_from_this(), &client_session::start_request,
                                            std::move(method), std::move(params),
                                            std::move(options), std::forward<Token>(token));
    }

    void notify(const std::string& method, json params = nullptr);

    // Server-to-client requests (elicitation/create, roots/list, ...) and notifications.
    void on_request(const std::string& method, jsonrpc::request_handler handler);
    void on_notification(const std::string& method, jsonrpc::notification_handler handler);

    // Orderly close of the transport; pending operations fail with connection_closed.
    void close();

    bool is_initialized() const;
    bool is_closed() const;
    // Throws std::logic_error before initialize() has completed.
    server_description server() const;

  private:
    client_session(boost::asio::io_context& io, std::shared_ptr<transport::transport> channel,
                   client_options options);

    void start_initialize(jsonrpc::cancellation_token cancellation,
                          jsonrpc::completion<server_description> done);
    void start_list_tools(list_options options,
                          jsonrpc::completion<std::vector<tool_descriptor>> done);
    void start_call_tool(std::string name, json arguments, call_options options,
                         jsonrpc::completion<call_tool_result> done);
    void start_ping(jsonrpc::completion<std::chrono::microseconds> done);
    void start_request(const std::string& method, json params, jsonrpc::request_options options,
                       jsonrpc::completion<json> done);
    void require_initialized(const std::string& method) const;

    struct state;
    boost::asio::io_context& io_;
    std::unique_ptr<state> state_;
};

}  // namespace ipybox::mcp::session
