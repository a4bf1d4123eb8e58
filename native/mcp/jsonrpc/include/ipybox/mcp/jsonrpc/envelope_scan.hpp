#pragma once
// A bounded look at the envelope of a message that could not be decoded (invalid UTF-8, nesting
// too deep, over the size limit, cut short): which top-level members it has and, when readable,
// its id. Used so that an unreadable answer fails the request it answers instead of leaving it
// pending (codec.hpp, and transports that refuse an oversized message without keeping it).
//
// Rules (each pinned by a unit test):
// - a byte scan: strings and escapes are respected, nesting is only counted (no stack), bytes
//   that are not UTF-8 are plain bytes; time is linear and memory constant, whatever the input;
// - only members of the top-level object count; text that does not start with '{' has none;
// - the id is read when it is an integer (64-bit) or a string of at most 256 bytes without
//   escapes; a later "id" member replaces an earlier one (as the JSON parser would);
// - member names with escapes are not recognised (no peer writes "\u0069d").
//
// Not thread-safe: one owner feeds it, in pieces or at once.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "ipybox/mcp/jsonrpc/message.hpp"

namespace ipybox::mcp::jsonrpc {

struct envelope_hints {
    std::optional<request_id> id;
    bool has_method = false;
    bool has_result = false;
    bool has_error = false;

    // An answer to one of our requests: "result" or "error" without "method".
    bool looks_like_response() const { return !has_method && (has_result || has_error); }
};

class envelope_scanner {
  public:
    void feed(std::string_view bytes);
    const envelope_hints& hints() const { return hints_; }

  private:
    enum class expect { key, colon, value, after_value };
    enum class capture { none, key, id_string, id_number };

    void step(char c);
    void end_string();
    void end_number();

    envelope_hints hints_;
    bool finished_ = false;  // the top level is not an object, or it has closed
    std::size_t depth_ = 0;
    bool in_string_ = false;
    bool escaped_ = false;
    expect expect_ = expect::key;
    capture capture_ = capture::none;
    bool capture_spoiled_ = false;  // an escape or too many bytes: the captured text is unusable
    bool value_of_id_ = false;      // the member being read is "id"
    std::string captured_;
};

// The hints of a whole text.
envelope_hints scan_envelope(std::string_view text);

}  // namespace ipybox::mcp::jsonrpc
