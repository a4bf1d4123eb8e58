#pragma once
// Exceptions of the JSON-RPC layer.
//
// Two directions, two families:
// - `jsonrpc_error` is thrown by *our* request handlers to answer with a specific error code. The
//   dispatcher turns it into an error response with that code; any other std::exception becomes
//   -32603 (internal error) carrying its message.
// - `request_failed` and its subclasses report why *our* outgoing request got no result. These
//   are expected failures with messages meant for a user: what was asked, what went wrong.
#include <chrono>
#include <stdexcept>
#include <string>

#include "ipybox/mcp/jsonrpc/message.hpp"

namespace ipybox::mcp::jsonrpc {

class jsonrpc_error : public std::runtime_error {
  public:
    jsonrpc_error(int code, const std::string& text, json data = nullptr);

    int code() const noexcept { return code_; }
    const json& data() const noexcept { return data_; }
    error_object to_error_object() const;

  private:
    int code_;
    json data_;
};

// Base of every failure of an outgoing request. `method()` names the request.
class request_failed : public std::runtime_error {
  public:
    request_failed(std::string method, const std::string& what);
    const std::string& method() const noexcept { return method_; }

  private:
    std::string method_;
};

// The peer answered with an error response.
class remote_error : public request_failed {
  public:
    remote_error(const std::string& method, error_object error);
    const error_object& error() const noexcept { return error_; }
    int code() const noexcept { return error_.code; }

  private:
    error_object error_;
};

// No answer within the request's timeout (or its total limit: `after` is then that limit).
// notifications/cancelled has been sent to the peer.
class request_timeout : public request_failed {
  public:
    request_timeout(const std::string& method, std::chrono::milliseconds after);
    // `what` is the whole message (the dispatcher names the peer and the request id in it).
    request_timeout(const std::string& method, std::chrono::milliseconds after,
                    const std::string& what);
    std::chrono::milliseconds after() const noexcept { return after_; }

  private:
    std::chrono::milliseconds after_;
};

// Our caller cancelled the request. notifications/cancelled has been sent to the peer.
class request_cancelled : public request_failed {
  public:
    request_cancelled(const std::string& method, const std::string& reason);
};

// The answer arrived but could not be read: not JSON (e.g. invalid UTF-8), nested too deep, over
// the size limit, or not a valid response. `reason()` says which, e.g. "invalid UTF-8 at byte 9".
class unreadable_answer : public request_failed {
  public:
    unreadable_answer(const std::string& method, std::string reason, const std::string& what);
    const std::string& reason() const noexcept { return reason_; }

  private:
    std::string reason_;
};

// The connection closed (or could not carry the request) before an answer arrived. `reason()` is
// the transport's explanation, e.g. "MCP server 'node' (pid 12) exited with status 3".
class connection_closed : public request_failed {
  public:
    connection_closed(const std::string& method, std::string reason);
    const std::string& reason() const noexcept { return reason_; }

  private:
    std::string reason_;
};

}  // namespace ipybox::mcp::jsonrpc
