#pragma once
// The one decoder for JSON that crosses into the host from something ipybox does not trust: the
// kernel (tool-server bodies, Jupyter message frames), MCP servers (their answers) and MCP
// clients (their requests). Pure and thread-safe.
//
// Before nlohmann parses a byte, one linear scan checks the text against `json_limits`:
//   - size:    more than max_bytes bytes                    -> "N bytes exceed the limit of M"
//   - UTF-8:   an ill-formed sequence anywhere              -> "invalid UTF-8 at byte N"
//   - depth:   arrays/objects nested deeper than max_depth  -> "nesting deeper than N levels"
//   - values:  more than max_values values and keys         -> "more than N values"
// so that a hostile text can neither overflow the parser's recursion (a segfault) nor cost more
// memory than its limits allow (parsed JSON takes several times its text: `[0,0,...]` is 16
// bytes a value). Then the parse itself, whose failure is "not JSON: <where and why>".
// Each failure is a json_decode_error whose what() is the reason alone, fit to quote in a
// message that names the sender ("the answer of server 'fs' to tools/list: invalid UTF-8 at
// byte 1234").
#include <cstddef>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>

namespace ipybox::core {

struct json_limits {
    std::size_t max_bytes = 16 * 1024 * 1024;
    std::size_t max_depth = 512;
    std::size_t max_values = 4 * 1024 * 1024;  // 0: no limit
};

class json_decode_error : public std::runtime_error {
  public:
    enum class reason { too_large, invalid_utf8, too_deep, too_many_values, syntax };
    json_decode_error(reason why, const std::string& text) : std::runtime_error(text), why_(why) {}
    reason why() const { return why_; }

  private:
    reason why_;
};

// The parsed value; throws json_decode_error.
nlohmann::json decode_json(std::string_view text, const json_limits& limits = {});

// What the scan found, for callers that must refuse before parsing (or report without parsing).
struct json_shape {
    std::size_t depth = 0;   // deepest nesting seen (the scan stops once it passes the limit)
    std::size_t values = 0;  // values and object keys seen, counted at their first byte
};
// Throws json_decode_error for the size, UTF-8, depth and value-count limits; does not parse.
json_shape check_json_limits(std::string_view text, const json_limits& limits = {});

}  // namespace ipybox::core
