#pragma once
// The host's registry of MCP servers and their live client sessions.
//
// Only the host registers servers (ARCHITECTURE.md, security property 1): kernel code names a
// registered server and a tool, nothing more. Sessions start lazily on first use, with ${VAR}
// placeholders filled at that moment from the host's variables (property 2), are cached, and
// are restarted when the previous one closed (a crashed server costs one failed call, not all
// later ones). Re-registering a name replaces its parameters and closes its session.
//
// Deadlines: every request to a server has them (server_deadlines.hpp: pool-wide defaults from
// pool_options, per server from its "timeouts" parameter; a listing's max_list counts from
// async_list_tools(), start-up included), and an answer that cannot be read
// (not UTF-8, nested deeper than 512 levels, over the transports' 16 MiB message limit) fails its
// request at once with mcp::jsonrpc::unreadable_answer. Tool results are therefore limited to
// 16 MiB of JSON per answer; a larger one fails with an error naming the limit.
//
// Asynchronous at heart: async_call_tool() and async_list_tools() start and return, and their
// handlers run on the loop's thread; a server that is starting up makes the calls that need it
// wait in a list, not in a thread. The blocking call_tool() and list_tools() wait for those, and
// refuse to run on the loop's own thread (std::logic_error), which would wait for itself.
// Handlers may run after the pool is gone: what they hold is shared with it.
//
// Thread-safety: every method may be called from any thread; calls to different servers run in
// parallel, and one server's start-up is shared by every call that arrives while it runs.
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ipybox/mcp/session/client_session.hpp"
#include "server_deadlines.hpp"

namespace ipybox::app {

struct pool_options {
    // Looks up ${VAR}s: the host environment first, then the workspace .env.
    std::function<std::optional<std::string>(std::string_view)> variables;
    std::filesystem::path default_cwd;  // for stdio servers without "cwd"
    // What stdio servers inherit under their own "env" (allowlisted by the caller); nullopt:
    // the allowlisted part of this process's environment.
    std::optional<std::map<std::string, std::string>> inherited_environment;
    std::chrono::milliseconds connect_timeout{30000};
    std::chrono::milliseconds call_timeout{600000};
    // The rest of the defaults (request, max_list, max_request, max_call, close); connect and
    // call above.
    server_deadlines deadlines;
};

class unknown_server : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class mcp_client_pool {
  public:
    mcp_client_pool(boost::asio::io_context& io, pool_options options);
    ~mcp_client_pool();

    // Records (or replaces) a server. Validates the parameters' shape; does not connect.
    // Throws std::invalid_argument.
    void register_server(const std::string& name, nlohmann::json params);
    bool has_server(const std::string& name) const;
    std::vector<std::string> server_names() const;  // in name order
    // The registered parameters of `name`, if any.
    std::optional<nlohmann::json> params_of(const std::string& name) const;
    // Forgets a server and closes its session.
    void unregister_server(const std::string& name);

    template <class T>
    using handler = std::function<void(std::exception_ptr, T)>;

    // Calls `tool`; `done` gets the result or the failure: unknown_server,
    // workspace::missing_variables_error (naming the variables), std::invalid_argument for bad
    // parameters, and mcp::jsonrpc::request_failed subclasses for connection and protocol
    // failures (request_cancelled after cancel_calls(): the server is told, and a start-up in
    // progress is abandoned). `done` runs on the loop's thread, never inside this call.
    void async_call_tool(const std::string& server, const std::string& tool,
                         nlohmann::json arguments, handler<mcp::session::call_tool_result> done);
    void async_list_tools(const std::string& server,
                          const mcp::jsonrpc::cancellation_token& cancellation,
                          handler<std::vector<mcp::session::tool_descriptor>> done);
    // Blocking forms of the above: not on the loop's thread (std::logic_error).
    mcp::session::call_tool_result call_tool(const std::string& server, const std::string& tool,
                                             const nlohmann::json& arguments);
    std::vector<mcp::session::tool_descriptor> list_tools(
        const std::string& server, const mcp::jsonrpc::cancellation_token& cancellation = {});

    // Closes every session, and those still starting; they restart on next use. Registrations
    // stay.
    void close_sessions();
    // Cancels every call_tool() in flight: the servers get notifications/cancelled and the
    // callers a request_cancelled error. For calls whose execution has ended (timeout, cancel).
    void cancel_calls(const std::string& reason);

  private:
    using session_ptr = std::shared_ptr<mcp::session::client_session>;
    using session_handler = std::function<void(std::exception_ptr, session_ptr)>;
    struct entry {
        nlohmann::json params;
        server_deadlines deadlines;
        session_ptr session;
        session_ptr starting;                  // during initialize
        std::vector<session_handler> waiting;  // calls that wait for `starting`
    };
    // What handlers share with the pool; guarded by `mutex`.
    struct shared_state {
        std::mutex mutex;
        std::map<std::string, std::shared_ptr<entry>> entries;
        std::set<std::shared_ptr<mcp::jsonrpc::cancellation_source>> calls;  // in flight
    };
    // The live session of `name`, started when needed; `done` runs on the loop's thread. A start
    // `for_listing` has its initialize bounded by max_list as well as connect.
    void async_session_for(const std::string& name,
                           const mcp::jsonrpc::cancellation_token& cancellation,
                           session_handler done, bool for_listing = false);
    std::shared_ptr<entry> find(const std::string& name) const;
    void refuse_loop_thread(const char* operation) const;

    boost::asio::io_context& io_;
    pool_options options_;
    std::shared_ptr<shared_state> shared_;
};

}  // namespace ipybox::app
