#include "zmtp_commands.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace ipybox::jupyter::detail {
namespace {

void append_u32(std::string& out, std::size_t value) {
    for (int shift = 24; shift >= 0; shift -= 8) {
        out.push_back(static_cast<char>((value >> shift) & 0xff));
    }
}

void append_property(std::string& body, std::string_view name, std::string_view value) {
    body.push_back(static_cast<char>(name.size()));
    body.append(name);
    append_u32(body, value.size());
    body.append(value);
}

std::string command(std::string_view body) {
    std::string out;
    zmtp_append_frame(out, zmtp_flag_command, body);
    return out;
}

}  // namespace

void zmtp_append_frame(std::string& out, std::uint8_t flags, std::string_view body) {
    if (body.size() > 255) {
        out.push_back(static_cast<char>(flags | zmtp_flag_long));
        for (int shift = 56; shift >= 0; shift -= 8) {
            out.push_back(
                static_cast<char>((static_cast<std::uint64_t>(body.size()) >> shift) & 0xff));
        }
    } else {
        out.push_back(static_cast<char>(flags));
        out.push_back(static_cast<char>(body.size()));
    }
    out.append(body);
}

std::string zmtp_ready(std::string_view socket_type, std::string_view identity) {
    std::string body = "\x05READY";
    append_property(body, "Socket-Type", socket_type);
    if (!identity.empty()) {
        if (identity.size() > 255 || identity.front() == '\0') {
            throw std::invalid_argument(
                "a ZMTP identity is 1 to 255 bytes and does not start with a zero byte");
        }
        append_property(body, "Identity", identity);
    }
    return command(body);
}

std::string zmtp_pong(std::string_view context) {
    if (context.size() > zmtp_max_ping_context) {
        throw std::invalid_argument("a PONG context is at most 16 bytes");
    }
    std::string body = "\x04PONG";
    body.append(context);
    return command(body);
}

std::vector<zmtp_property> zmtp_parse_metadata(std::string_view metadata) {
    std::vector<zmtp_property> properties;
    while (!metadata.empty()) {
        const std::size_t name_size = static_cast<std::uint8_t>(metadata[0]);
        if (name_size == 0) throw zmtp_error("a READY property with an empty name");
        if (metadata.size() < 1 + name_size + 4) {
            throw zmtp_error("a READY property cut short");
        }
        zmtp_property property;
        property.name = metadata.substr(1, name_size);
        metadata.remove_prefix(1 + name_size);
        std::uint64_t value_size = 0;
        for (int i = 0; i < 4; ++i) value_size = (value_size << 8) | std::uint8_t(metadata[i]);
        metadata.remove_prefix(4);
        if (value_size > metadata.size()) {
            throw zmtp_error("the READY property " + property.name + " declares " +
                             std::to_string(value_size) + " bytes, more than the command holds");
        }
        property.value = metadata.substr(0, static_cast<std::size_t>(value_size));
        metadata.remove_prefix(static_cast<std::size_t>(value_size));
        properties.push_back(std::move(property));
    }
    return properties;
}

bool zmtp_socket_types_pair(std::string_view ours, std::string_view theirs) {
    // RFC 37's table, one entry per legal pair (the table is symmetric).
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 15> pairs = {{
        {"REQ", "REP"},
        {"REQ", "ROUTER"},
        {"REP", "DEALER"},
        {"DEALER", "DEALER"},
        {"DEALER", "ROUTER"},
        {"ROUTER", "ROUTER"},
        {"PUB", "SUB"},
        {"PUB", "XSUB"},
        {"XPUB", "SUB"},
        {"XPUB", "XSUB"},
        {"PUSH", "PULL"},
        {"PAIR", "PAIR"},
        {"CLIENT", "SERVER"},
        {"RADIO", "DISH"},
        {"SCATTER", "GATHER"},
    }};
    return std::any_of(pairs.begin(), pairs.end(),
                       [&](const auto& pair) {
                           return (pair.first == ours && pair.second == theirs) ||
                                  (pair.first == theirs && pair.second == ours);
                       }) ||
           (ours == theirs && (ours == "PEER" || ours == "CHANNEL"));
}

}  // namespace ipybox::jupyter::detail
