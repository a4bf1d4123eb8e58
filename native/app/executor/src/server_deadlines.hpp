#pragma once
// How long ipybox waits for an MCP server, per server: the defaults below, each overridable in the
// server's parameters (seconds, positive numbers, fractions allowed):
//
//   "timeouts": {"connect": 30, "request": 60, "call": 300, "max_list": 60,
//                "max_request": 600, "max_call": 3600, "close": 4}
//
//   connect      starting the server and initialize, all told
//   request      tools/list (each page) and ping: the longest silence while waiting for the answer
//   call         tools/call: the longest silence; progress notifications and bytes of an answer
//                still arriving count as signs of life (also for `request`)
//   max_list     a whole listing, whatever arrives: initialize when the listing starts the
//                server, and every page of tools/list. A person waits for it (registering a
//                server, `ipybox generate`), so a minute, not max_request's ten
//   max_request  a ping or other request, whatever arrives: an answer trickling in a few bytes a
//                second still fails here
//   max_call     a tool call, whatever arrives (progress forever, a trickle)
//   close        the orderly end of a stdio server (stdin closed, then SIGTERM halfway, SIGKILL at
//                the end); an HTTP session's DELETE waits at most min("timeout", 5 s)
//
// Whichever is reached, the request fails with an error naming the server, the request and the
// limit, and the server is told (notifications/cancelled). Pure; thread-safe.
#include <chrono>
#include <nlohmann/json.hpp>

namespace ipybox::app {

struct server_deadlines {
    std::chrono::milliseconds connect{30000};
    std::chrono::milliseconds request{60000};
    std::chrono::milliseconds call{300000};
    std::chrono::milliseconds max_list{60000};
    std::chrono::milliseconds max_request{600000};
    std::chrono::milliseconds max_call{3600000};
    std::chrono::milliseconds close{4000};
};

// `defaults` with the server parameters' "timeouts" applied. Throws std::invalid_argument naming
// the key when "timeouts" is not an object, a key is unknown, or a value is not a positive
// number of seconds (at most a week).
server_deadlines deadlines_for(const nlohmann::json& server_params,
                               const server_deadlines& defaults);

}  // namespace ipybox::app
