#pragma once
// The tool server: HTTP/1.1 on a Unix socket that only kernel code of this session can reach
// (the socket lives in a 0700 directory and every request must carry the session token).
//
// Concurrency: the server runs on its owner's io_context (the application's one loop), which
// must be running, or stopped, whenever stop() is called. Connections are read and written there
// asynchronously, with a deadline on each read and write, so an idle or stalled client holds no
// thread. Handling a request may block for a long time (an approval waits for a person, a tool
// call for its MCP server): each request being handled has a worker thread, at most one per
// connection and `max_connections` connections (src/connection.hpp).
// Lifecycle: the constructor binds and starts accepting; stop() (or the destructor) closes the
// listener and every open connection and waits for the workers. Thread-safety: stop() may be
// called from any thread, the loop's included, once or more.
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "ipybox/approval/gate.hpp"
#include "ipybox/toolserver/library_writer.hpp"
#include "ipybox/toolserver/tool_invoker.hpp"

namespace ipybox::toolserver {

struct tool_server_options {
    std::filesystem::path socket_path;  // created; its directory should be private (0700)
    std::string token;                  // required on every request
    std::size_t max_body_bytes = 16 * 1024 * 1024;
    std::size_t max_connections = 64;
    // The most a request may take to arrive, idle time before it included: an idle keep-alive
    // connection, or one that stops sending, is closed after this.
    std::chrono::seconds idle_timeout{300};
    std::chrono::seconds write_timeout{30};  // the most an answer may take to be taken
};

class tool_server {
  public:
    // Throws std::system_error if the socket cannot be bound. `shell_gate` decides about shell
    // commands (POST /shell); null turns that endpoint off. `library` saves code actions into
    // the user library (POST /gentools); null turns that endpoint off. The gates and the writer
    // must outlive the server.
    tool_server(boost::asio::io_context& io, tool_server_options options, approval::gate& gate,
                tool_invoker& invoker, approval::gate* shell_gate = nullptr,
                library_writer* library = nullptr);
    ~tool_server();

    tool_server(const tool_server&) = delete;
    tool_server& operator=(const tool_server&) = delete;

    void stop();
    const std::filesystem::path& socket_path() const;

  private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace ipybox::toolserver
