#pragma once
// MCP values shared by our client and our server sessions, with their JSON forms. Values only.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ipybox/mcp/jsonrpc/errors.hpp"

namespace ipybox::mcp::session {

using json = nlohmann::json;

// clientInfo / serverInfo.
struct implementation_info {
    std::string name;
    std::string version;
    std::optional<std::string> title;

    json to_json() const;
    // Lenient: missing or mistyped members become empty.
    static implementation_info from_json(const json& value);
};

// One entry of tools/list.
struct tool_descriptor {
    std::string name;
    std::optional<std::string> title;
    std::string description;
    json input_schema = json{{"type", "object"}};  // `inputSchema`
    json output_schema;                            // `outputSchema`; null when absent
    json annotations;                              // null when absent
    json raw;  // the entry exactly as received (client side); null for tools we register

    json to_json() const;
    // Throws protocol_error when `value` is not an object with a string name.
    static tool_descriptor from_json(const json& value);
};

// The result of tools/call. A tool that ran and failed has is_error = true: that is a normal
// result, not a JSON-RPC error.
struct call_tool_result {
    json content = json::array();  // content blocks: text, image, audio, resource_link, resource
    json structured;               // `structuredContent`; null when absent
    bool is_error = false;
    // MCP 2026-07-28 only: the tool needs input first (multi round-trip requests). With either
    // set the result is an InputRequiredResult ({"resultType": "input_required", "inputRequests",
    // "requestState"}) and the fields above are not sent; the client retries with the answers.
    json input_requests;                       // key -> {"method", "params"}; null when absent
    std::optional<std::string> request_state;  // opaque to the client, echoed on the retry
    bool needs_input() const { return !input_requests.is_null() || request_state.has_value(); }

    json to_json() const&;
    // Moves the content out: a result with inlined images can be megabytes.
    json to_json() &&;
    // Throws protocol_error when `content` is present but not an array.
    static call_tool_result from_json(const json& value);

    // Convenience: one text block.
    static call_tool_result text(std::string text, bool is_error = false);
};

// The peer broke the protocol: a malformed result, a pagination loop. Expected failure, reported
// like every other failure of an outgoing request.
class protocol_error : public jsonrpc::request_failed {
  public:
    protocol_error(const std::string& method, const std::string& what);
};

// The request was not sent: the peer did not declare, in initialize, the capability the method
// needs (e.g. "tools" for tools/call, "elicitation" for elicitation/create).
class capability_not_declared : public jsonrpc::request_failed {
  public:
    capability_not_declared(const std::string& method, const std::string& capability);
};

// initialize succeeded at the JSON-RPC level, but the server chose a revision we do not speak.
class unsupported_protocol_version : public jsonrpc::request_failed {
  public:
    explicit unsupported_protocol_version(const std::string& offered);
    const std::string& offered() const noexcept { return offered_; }

  private:
    std::string offered_;
};

}  // namespace ipybox::mcp::session
