#pragma once
// The requestState of ipybox's input-required results (MCP 2026-07-28, multi round-trip
// requests): which waiting cell a retry continues. The client holds it between the two requests,
// so it is treated as the attacker's: sealed with HMAC-SHA256 under a key that never leaves the
// process (core/hmac.hpp), and on the way back its tag is checked first, then that it names this
// kernel, the same call (a digest of its arguments) and has not expired. Single use is enforced
// by the holder of the waiting cells, which forgets a cell once it is continued. Pure.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ipybox::app {

struct cell_ticket {
    std::string kernel;        // random, one per kernel_unit's tools
    std::string cell;          // random, one per waiting cell
    std::string arguments;     // arguments_digest() of the call
    std::int64_t expires = 0;  // seconds since the epoch
};

// Why a requestState is refused; what() is for the client.
class ticket_refused : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

// "v1." + base64(JSON of the ticket) + "." + tag.
std::string seal_ticket(std::string_view key, const cell_ticket& ticket);

// The ticket `state` carries, checked against `kernel`, `arguments` and `now`. Throws
// ticket_refused: malformed or forged (one message for both), of another kernel, for another
// call, or expired.
cell_ticket open_ticket(std::string_view key, std::string_view state, std::string_view kernel,
                        std::string_view arguments, std::int64_t now);

// A digest of a call's arguments, without kernel_id (the route, not the call).
std::string arguments_digest(const nlohmann::json& arguments);

}  // namespace ipybox::app
