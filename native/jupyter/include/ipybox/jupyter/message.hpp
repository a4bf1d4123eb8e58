#pragma once
// The Jupyter message model (messaging protocol 5.3): header, parent header, metadata, content
// and binary buffers, plus the routing identities that precede them on the wire.
//
// Plain value type; no I/O. See wire.hpp for the byte-level encoding.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ipybox::jupyter {

using json = nlohmann::json;

inline constexpr const char* protocol_version = "5.3";

struct message {
    std::vector<std::string> identities;
    json header = json::object();
    json parent_header = json::object();
    json metadata = json::object();
    json content = json::object();
    std::vector<std::string> buffers;

    std::string msg_type() const;
    std::string msg_id() const;
    // The msg_id of the request this message answers, or "" if it has no parent.
    std::string parent_msg_id() const;
};

// A new request with a fresh msg_id, the given session id and the current UTC time.
message make_request(const std::string& msg_type, json content, const std::string& session_id);

// The current UTC time in the ISO 8601 form Jupyter uses ("2026-11-22T08:00:00.123456Z").
std::string utc_timestamp();

// Parses a Jupyter ISO 8601 timestamp into microseconds since the epoch; nullopt if malformed.
std::optional<long long> parse_timestamp_micros(const std::string& text);

}  // namespace ipybox::jupyter
