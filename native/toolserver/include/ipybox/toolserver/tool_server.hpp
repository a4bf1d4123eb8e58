#pragma once
// The tool server: HTTP/1.1 on a Unix socket that only kernel code of this session can reach
// (the socket lives in a 0700 directory and every request must carry the session token).
//
// Lifecycle: the constructor binds and starts accepting; stop() (or the destructor) closes the
// listener and every open connection and joins their threads. A request handler may block for a
// long time (approval, a slow tool): each connection has its own thread, at most
// `max_connections` at once.
// Thread-safety: stop() may be called from any thread, once or more.
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
    std::chrono::seconds idle_timeout{300};  // an idle keep-alive connection is closed after this
};

class tool_server {
  public:
    // Throws std::system_error if the socket cannot be bound. `shell_gate` decides about shell
    // commands (POST /shell); null turns that endpoint off. `library` saves code actions into
    // the user library (POST /gentools); null turns that endpoint off. The gates and the writer
    // must outlive the server.
    tool_server(tool_server_options options, approval::gate& gate, tool_invoker& invoker,
                approval::gate* shell_gate = nullptr, library_writer* library = nullptr);
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
