#pragma once
// A Server-Sent Events parser (WHATWG HTML "event stream interpretation"): bytes in, events out.
// Pure: no I/O, no clock. One parser per stream; not thread-safe (one owner feeds it).
//
// - Lines end with CRLF, LF or CR, also when the CR and the LF arrive in different chunks; a line
//   may be split across any number of chunks.
//   One leading UTF-8 byte order mark is skipped, even when split across chunks.
// - "field: value" (one space after the colon is dropped), "field" alone means an empty value;
//   lines starting with ':' are comments. Fields: event, data (lines joined with '\n'), id (ignored
//   when it contains NUL), retry (only ASCII digits). Unknown fields are ignored.
// - A blank line dispatches the event: it commits the last event id (even when no event is
//   dispatched) and yields an event unless no data line was seen. An event with one empty data
//   line ("data:") is dispatched with empty data: MCP servers send those to prime Last-Event-ID.
// - Bounded: an event whose buffered data (or a single line) exceeds `max_event_bytes` is dropped
//   up to its blank line and counted in discarded_events(); parsing continues with the next one.
//   Its data lines still pass through an envelope scan (jsonrpc/envelope_scan.hpp, constant
//   memory), whose result take_oversized() hands out once the event has ended: an answer that
//   is refused for its size can then fail the request it answers.
// - finish() marks the end of the stream: an event without its blank line is discarded.
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ipybox/mcp/jsonrpc/envelope_scan.hpp"

namespace ipybox::mcp::http {

struct sse_event {
    std::string type = "message";  // the `event` field, "message" when absent
    std::string data;
    std::string
        id;  // the last event id when the event was dispatched (may come from an earlier event)

    friend bool operator==(const sse_event&, const sse_event&) = default;
};

inline constexpr std::size_t default_max_event_bytes = 32 * 1024 * 1024;

class sse_parser {
  public:
    explicit sse_parser(std::size_t max_event_bytes = default_max_event_bytes);

    // Returns the events completed by `bytes`, in order.
    std::vector<sse_event> feed(std::string_view bytes);
    void finish();

    // The id to send as Last-Event-ID when reconnecting; empty when none was committed.
    const std::string& last_event_id() const { return last_event_id_; }
    // The reconnection delay the server asked for, if it did.
    std::optional<std::chrono::milliseconds> retry() const { return retry_; }
    std::size_t discarded_events() const { return discarded_; }
    // The envelopes of the events discarded since the last call, in order.
    std::vector<jsonrpc::envelope_hints> take_oversized();
    // True when bytes of an event that is not complete yet are buffered (a message in transit).
    bool inside_event() const { return !line_.empty() || saw_data_ || discarding_; }

  private:
    void process(std::string_view bytes, std::vector<sse_event>& out);
    void append_to_line(std::string_view bytes);
    void end_line(std::vector<sse_event>& out);
    void on_field(std::string_view name, std::string_view value);
    void dispatch(std::vector<sse_event>& out);
    void start_discarding();
    void scan_discarded(std::string_view bytes);
    bool over_limit() const;

    std::size_t max_event_bytes_;
    std::size_t bom_matched_ = 0;  // bytes of a leading BOM seen so far
    bool bom_checked_ = false;
    bool after_cr_ = false;  // the previous byte ended a line with CR: a following LF is part of it
    std::string line_;
    std::string data_;
    std::string type_;
    bool saw_data_ = false;
    std::string id_buffer_;
    std::string last_event_id_;
    std::optional<std::chrono::milliseconds> retry_;
    bool discarding_ = false;
    bool discard_line_has_content_ = false;
    std::size_t discarded_ = 0;
    // The discarded event's envelope: its data lines are scanned, other lines are not.
    jsonrpc::envelope_scanner discarded_envelope_;
    std::string discarded_field_;  // the start of a discarded line, until "data:" is decided
    enum class discarded_line {
        undecided,
        data,
        other
    } discarded_line_ = discarded_line::undecided;
    std::vector<jsonrpc::envelope_hints> oversized_;
};

}  // namespace ipybox::mcp::http
