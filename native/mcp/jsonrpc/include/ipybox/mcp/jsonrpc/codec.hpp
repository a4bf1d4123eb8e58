#pragma once
// Pure codec between one JSON text and one `message`. No I/O, no state, thread-safe.
//
// Decoding rules (each pinned by a unit test):
// - not JSON, or over the limits of core::decode_json (size, invalid UTF-8, nesting, value
//   count; the one bounded decoder, json_decode.hpp) -> -32700 parse error whose message is
//   "Parse error: " and the decoder's reason, e.g. "invalid UTF-8 at byte 1234". Its id stays
//   unknown unless a bounded scan of the text (envelope_scan.hpp) shows an answer ("result" or
//   "error", no "method"): then the id is kept when readable and no reply is expected, so that
//   the dispatcher can fail the request it answers.
// - a top-level array (a batch)                          -> -32600 invalid request. Batching was
//   removed from MCP in 2025-06-18; we reject it for every negotiated version (no known MCP peer
//   sends batches) and answer with a single error response whose id is null.
// - not an object, "jsonrpc" != "2.0", a non-string method, an id that is null, fractional or
//   neither integer nor string, params that are neither object nor array, a response with both or
//   neither of result/error, a malformed error object    -> -32600 invalid request
// - "params": null is read as absent params (lenient: some clients write it).
// Unknown members are ignored. When the id of a bad message can be read it is kept, so the error
// response can name it.
//
// Encoding never fails: invalid UTF-8 inside strings is replaced by U+FFFD, and the output is a
// single line (JSON escapes newlines inside strings), ready for newline framing.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "ipybox/core/json_decode.hpp"
#include "ipybox/mcp/jsonrpc/envelope_scan.hpp"
#include "ipybox/mcp/jsonrpc/message.hpp"

namespace ipybox::mcp::jsonrpc {

// Why a text is not a message, and how to answer it.
struct decode_failure {
    error_object error;            // code is parse_error or invalid_request
    std::optional<request_id> id;  // the offending message's id, when readable
    bool reply_expected = true;    // false exactly when the bad message looked like a response
                                   // (an answer to one of ours): answering a response risks an
                                   // error ping-pong between two peers
};

using decode_result = std::variant<message, decode_failure>;

decode_result decode(std::string_view text, const core::json_limits& limits = {});

// The failure for a message refused unread or unparsed (e.g. "a message of 20971520 bytes exceeds
// the limit of 16777216"): a parse error whose id and reply_expected follow `hints` as above.
decode_failure unreadable_message(const std::string& reason, const envelope_hints& hints);

// "a message of 20 MiB exceeds the 16 MiB limit"; with no size (the reader stopped at the limit)
// "a message exceeds the 16 MiB limit". Sizes that are not whole MiB are given in bytes too.
std::string oversized_reason(std::optional<std::size_t> size, std::size_t limit);

// Interprets an already parsed JSON value (same rules, minus the parse step).
decode_result decode_json(const json& value);

json to_json(const message& msg);
// The same text as to_json(msg).dump(), without copying the message's params or result into an
// envelope first (a result with inlined images can be megabytes).
std::string encode(const message& msg);

}  // namespace ipybox::mcp::jsonrpc
