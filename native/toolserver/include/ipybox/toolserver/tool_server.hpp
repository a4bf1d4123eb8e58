#pragma once
// The tool server: HTTP/1.1 on a Unix socket that only kernel code of this session can reach
// (the socket lives in a 0700 directory and every request must carry the session token).
//
// Concurrency: the server runs on its owner's io_context (the application's one loop), which
// must be running, or stopped, whenever stop() is called. Connections are read and written there
// asynchronously, with a deadline on each read and write, so an idle or stalled client holds no
// thread. Handling a request may take long (an approval waits for a person, a tool call for its
// MCP server) but holds no thread either: the gate and the invoker answer through callbacks
// (routes.hpp), so the server runs on its loop's thread alone, however many calls are pending.
// Memory: everything a request may hold is bounded before its body is read. Headers are read up
// to max_header_bytes into a buffer of fixed size; a body is read only once its cost (the body,
// copies of it, the largest parse its JSON may give: src/request_budget.hpp) fits in
// max_request_memory_bytes, shared by all connections; until then it waits, unread. Answers
// waiting to be read hold the same budget until written; one that does not fit is answered 503
// instead, and its connection closed. A body over
// max_body_bytes is answered 413 unread, headers over the limit 431, JSON over the decoder's
// limits (max_json_depth, max_json_values; core/json_decode.hpp) 400.
// Lifecycle: the constructor binds and starts accepting; stop() (or the destructor) closes the
// listener and every open connection, and from then on leaves the gate, the invoker and the
// writer alone (answers still pending are dropped: src/owner_seams.hpp), so the owner may
// destroy them once it returns. Thread-safety: stop() may be called from any thread, the loop's
// included, once or more, but not from inside the gate, the invoker or the writer.
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "ipybox/approval/gate.hpp"
#include "ipybox/toolserver/dependency_adder.hpp"
#include "ipybox/toolserver/library_writer.hpp"
#include "ipybox/toolserver/tool_invoker.hpp"

namespace ipybox::toolserver {

struct tool_server_options {
    std::filesystem::path socket_path;  // created; its directory should be private (0700)
    std::string token;                  // required on every request
    std::size_t max_body_bytes = 8 * 1024 * 1024;
    std::size_t max_header_bytes = 8 * 1024;  // request line and header fields together
    std::size_t max_connections = 64;
    // The bodies of all requests in flight, what handling them holds and the answers not yet
    // written, together. It must take
    // the largest request: the constructor throws std::invalid_argument when it cannot.
    std::size_t max_request_memory_bytes = 64 * 1024 * 1024;
    std::size_t max_json_depth = 512;      // as the stdio side (mcp/jsonrpc)
    std::size_t max_json_values = 100000;  // values and keys of one request body
    // The most a request may take to arrive, idle time before it included: an idle keep-alive
    // connection, or one that stops sending, is closed after this.
    std::chrono::seconds idle_timeout{300};
    std::chrono::seconds write_timeout{30};  // the most an answer may take to be taken
    // POST /shell: ask the gate about shell commands (approval::shell_command). Off: 404.
    bool shell_commands = false;
};

// What one request with a body of `body_bytes` takes of options.max_request_memory_bytes while
// it is in flight.
std::size_t request_cost_of(const tool_server_options& options, std::size_t body_bytes);

class tool_server {
  public:
    // Throws std::system_error if the socket cannot be bound, std::invalid_argument if the
    // options contradict each other. `gate` decides every request (tool calls, shell commands,
    // saves, dependencies). `library` saves code actions into the user library (POST /gentools),
    // `dependencies` adds what a saved action needs (POST /dependencies); null turns either
    // endpoint off. The gate, the invoker, the writer and the adder must live until stop()
    // returns.
    tool_server(boost::asio::io_context& io, tool_server_options options, approval::gate& gate,
                tool_invoker& invoker, library_writer* library = nullptr,
                dependency_adder* dependencies = nullptr);
    ~tool_server();

    tool_server(const tool_server&) = delete;
    tool_server& operator=(const tool_server&) = delete;

    void stop();
    const std::filesystem::path& socket_path() const;
    // Requests whose header is read and whose body waits for the memory budget (for logs and
    // tests). Must not be called on the loop's thread while the loop is blocked.
    std::size_t requests_waiting() const;

  private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace ipybox::toolserver
