#pragma once
// How the tool server reaches MCP tools: an interface the application implements on top of its
// MCP client pool (dependency inversion: the tool server links no MCP code).
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ipybox/approval/request.hpp"

namespace ipybox::toolserver {

// Error types on the wire; the kernel's tool client maps them to exception classes.
namespace error_type {
inline constexpr const char* rejected = "rejected";      // approval said no
inline constexpr const char* timeout = "timeout";        // approval did not come in time
inline constexpr const char* tool_error = "tool_error";  // the tool ran and failed (isError)
inline constexpr const char* unknown_server = "unknown_server";
inline constexpr const char* unauthorized = "unauthorized";
inline constexpr const char* bad_request = "bad_request";
inline constexpr const char* server_error = "server_error";  // the MCP server failed or died
inline constexpr const char* exists = "exists";              // a save would replace files
inline constexpr const char* unsafe_path = "unsafe_path";    // a link or foreign file on the way
}  // namespace error_type

struct tool_outcome {
    // {"text": str, "structured": json|null, "images": [paths], "is_error": false}
    std::optional<nlohmann::json> result;
    std::string error_type;  // set when result is empty
    std::string error_message;

    static tool_outcome success(nlohmann::json result) { return {std::move(result), {}, {}}; }
    static tool_outcome failure(std::string type, std::string message) {
        return {std::nullopt, std::move(type), std::move(message)};
    }
};

using outcome_handler = std::function<void(tool_outcome)>;

// Thread-safety: both methods may be called from any thread, concurrently.
class tool_invoker {
  public:
    virtual ~tool_invoker() = default;
    // Is `server_name` registered by the host? Checked before asking for approval.
    virtual bool knows_server(const std::string& server_name) const = 0;
    // Starts the call and returns; `done` gets its outcome exactly once, possibly before invoke()
    // returns, possibly later from another thread. Must not block (a tool call may take
    // minutes). May throw before it has started anything (then `done` is never called).
    // `done` may be called after the invoker is gone: what it runs must not need the invoker.
    virtual void invoke(const approval::tool_call& call, outcome_handler done) = 0;
};

}  // namespace ipybox::toolserver
