#pragma once
// Which negotiated capability a request needs, per the MCP specification's capability lists.
// Pure: no I/O, no state. Used by protocol_core before it sends a request.
#include <optional>
#include <string_view>

namespace ipybox::mcp::session::detail {

// Who sends the request: a client asks a server, a server asks a client.
enum class sender { client, server };

// The top-level capability key the receiving peer must have declared for `method`, e.g.
// "tools" for a client's tools/call, "elicitation" for a server's elicitation/create. Nothing
// for methods every peer answers (ping) and for methods the specification ties to no capability.
std::optional<std::string_view> capability_for(sender from, std::string_view method);

}  // namespace ipybox::mcp::session::detail
