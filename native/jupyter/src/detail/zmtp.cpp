#include "zmtp.hpp"

#include <algorithm>
#include <utility>

namespace ipybox::jupyter::detail {
namespace {

constexpr std::size_t greeting_size = 64;
constexpr std::uint8_t flag_more = zmtp_flag_more;
constexpr std::uint8_t flag_long = zmtp_flag_long;
constexpr std::uint8_t flag_command = zmtp_flag_command;

// A value from the peer as an error message shows it: the log escapes control characters, this
// keeps a 64 KiB value from filling the line.
std::string clipped(std::string_view value) {
    constexpr std::size_t shown = 32;
    return value.size() <= shown ? std::string(value) : std::string(value.substr(0, shown)) + "...";
}

bool same_name(std::string_view a, std::string_view b) {
    // Property names are case-insensitive (RFC 37); ASCII folding is all they need.
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                              [&](char x, char y) { return lower(x) == lower(y); });
}

void check_greeting(std::string_view greeting) {
    const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(greeting[i]); };
    if (byte(0) != 0xff || (byte(9) & 0x01) == 0) {
        throw zmtp_error("the peer does not speak ZMTP (no ZMTP 3 signature)");
    }
    if (byte(10) < 3) {
        throw zmtp_error("the peer speaks ZMTP " + std::to_string(byte(10)) + ", not 3");
    }
    const auto mechanism = greeting.substr(12, 20);
    if (mechanism.substr(0, 4) != "NULL" ||
        mechanism.find_first_not_of('\0', 4) != std::string_view::npos) {
        throw zmtp_error("the peer asks for a security mechanism other than NULL");
    }
}

}  // namespace

std::string zmtp_greeting() {
    std::string greeting(greeting_size, '\0');
    greeting[0] = static_cast<char>(0xff);
    greeting[9] = 0x7f;
    greeting[10] = 3;  // version 3.0: subscriptions are messages (PINGs may come all the same)
    greeting.replace(12, 4, "NULL");
    return greeting;
}

void zmtp_append_message(std::string& out, const std::vector<std::string>& frames) {
    for (std::size_t i = 0; i < frames.size(); ++i) {
        zmtp_append_frame(out, i + 1 < frames.size() ? flag_more : 0, frames[i]);
    }
}

zmtp_reader::zmtp_reader(std::string socket_type, zmtp_limits limits)
    : socket_type_(std::move(socket_type)), limits_(limits) {}

std::optional<std::string> zmtp_reader::take_ping() {
    return std::exchange(ping_, std::nullopt);
}

void zmtp_reader::feed(std::string_view bytes, const callbacks& calls) {
    while (!bytes.empty()) {
        switch (state_) {
            case state::greeting: {
                const auto take = std::min(bytes.size(), greeting_size - pending_.size());
                pending_.append(bytes.substr(0, take));
                bytes.remove_prefix(take);
                if (pending_.size() < greeting_size) return;
                check_greeting(pending_);
                pending_.clear();
                state_ = state::frame_flags;
                break;
            }
            case state::frame_flags:
                flags_ = static_cast<std::uint8_t>(bytes.front());
                bytes.remove_prefix(1);
                if ((flags_ & ~(flag_more | flag_long | flag_command)) != 0) {
                    throw zmtp_error("a frame with reserved flags set");
                }
                state_ = state::frame_size;
                break;
            case state::frame_size: {
                const std::size_t size_bytes = (flags_ & flag_long) ? 8 : 1;
                const auto take = std::min(bytes.size(), size_bytes - pending_.size());
                pending_.append(bytes.substr(0, take));
                bytes.remove_prefix(take);
                if (pending_.size() < size_bytes) return;
                remaining_ = 0;
                for (const char c : pending_) remaining_ = (remaining_ << 8) | std::uint8_t(c);
                pending_.clear();
                on_frame_header(calls);
                state_ = state::frame_body;
                if (remaining_ == 0) on_frame_end(calls);
                break;
            }
            case state::frame_body: {
                const auto take =
                    static_cast<std::size_t>(std::min<std::uint64_t>(bytes.size(), remaining_));
                if (flags_ & flag_command) {
                    command_.append(bytes.substr(0, take));
                } else if (!dropping_) {
                    frames_.back().append(bytes.substr(0, take));
                }
                bytes.remove_prefix(take);
                remaining_ -= take;
                if (remaining_ == 0) on_frame_end(calls);
                break;
            }
        }
    }
}

void zmtp_reader::on_frame_header(const callbacks& calls) {
    if (flags_ & flag_command) {
        if (remaining_ > zmtp_max_command_bytes || (flags_ & flag_more)) {
            throw zmtp_error("a command frame of " + std::to_string(remaining_) + " bytes");
        }
        command_.clear();
        return;
    }
    if (!handshaken_) throw zmtp_error("a message before the peer's READY");
    if (dropping_) return;
    std::string reason;
    if (frames_.size() + 1 > limits_.max_frames) {
        reason = "over " + std::to_string(limits_.max_frames) + " frames";
    } else if (remaining_ > limits_.max_message_bytes - held_) {
        reason = "over " + std::to_string(limits_.max_message_bytes) + " bytes";
    }
    if (!reason.empty()) {
        // What was kept of it goes now; the rest streams past without being held.
        dropping_ = true;
        std::vector<std::string>().swap(frames_);
        held_ = 0;
        if (calls.on_dropped) calls.on_dropped({std::move(reason)});
        return;
    }
    frames_.emplace_back().reserve(static_cast<std::size_t>(remaining_));
    held_ += static_cast<std::size_t>(remaining_);
}

void zmtp_reader::on_frame_end(const callbacks& calls) {
    state_ = state::frame_flags;
    if (flags_ & flag_command) {
        on_command(command_);
        return;
    }
    if (flags_ & flag_more) return;
    if (dropping_) {
        dropping_ = false;
        return;
    }
    auto frames = std::move(frames_);
    frames_.clear();
    held_ = 0;
    ++delivered_;
    if (calls.on_message) calls.on_message(std::move(frames));
}

void zmtp_reader::on_command(const std::string& body) {
    // A command may come between two frames of a message: RFC 37's grammar has none there, but
    // libzmq sends its heartbeat PING whenever its timer fires, mid-message included (seen by
    // test_zmtp_libzmq.cpp), and reads commands there itself. The message goes on around it.
    const auto name_size = body.empty() ? 0 : static_cast<std::uint8_t>(body[0]);
    if (name_size == 0 || body.size() < 1u + name_size) throw zmtp_error("a malformed command");
    const auto name = std::string_view(body).substr(1, name_size);
    const auto rest = std::string_view(body).substr(1 + name_size);
    if (name == "ERROR") {
        const auto reason =
            rest.empty() ? std::string_view() : rest.substr(1, static_cast<std::uint8_t>(rest[0]));
        throw zmtp_error("the peer refused the connection: " + std::string(reason));
    }
    if (!handshaken_) {
        if (name != "READY") {
            throw zmtp_error("a " + std::string(name) + " command before the peer's READY");
        }
        on_ready(rest);
        return;
    }
    if (name == "READY") throw zmtp_error("a second READY");
    if (name == "PING" || name == "PONG") {
        // PING: a 2-octet TTL, then the context; PONG: the context. We never ping, so a PONG is
        // only checked for its size.
        const std::size_t ttl = name == "PING" ? 2 : 0;
        if (rest.size() < ttl || rest.size() - ttl > zmtp_max_ping_context) {
            throw zmtp_error("a " + std::string(name) + " command of " +
                             std::to_string(rest.size()) + " bytes");
        }
        if (ttl != 0) ping_ = std::string(rest.substr(ttl));
        return;
    }
    // Other commands (SUBSCRIBE and CANCEL are for publishers, which we never are; a security
    // mechanism's own) mean nothing to a NULL client and are ignored.
}

void zmtp_reader::on_ready(std::string_view metadata) {
    std::optional<std::string> type;
    for (auto& property : zmtp_parse_metadata(metadata)) {
        if (!same_name(property.name, "Socket-Type")) continue;
        if (type) throw zmtp_error("a READY with two Socket-Type properties");
        type = std::move(property.value);
    }
    if (!type) throw zmtp_error("a READY without a Socket-Type");
    if (!zmtp_socket_types_pair(socket_type_, *type)) {
        throw zmtp_error("the peer is a " + clipped(*type) + " socket, which a " + socket_type_ +
                         " socket cannot talk to");
    }
    peer_socket_type_ = std::move(*type);
    handshaken_ = true;
}

}  // namespace ipybox::jupyter::detail
