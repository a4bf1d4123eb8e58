#include "zmtp.hpp"

#include <algorithm>

namespace ipybox::jupyter::detail {
namespace {

constexpr std::size_t greeting_size = 64;
constexpr std::uint8_t flag_more = 0x01;
constexpr std::uint8_t flag_long = 0x02;
constexpr std::uint8_t flag_command = 0x04;
// READY carries a few properties; nothing a client needs is larger.
constexpr std::uint64_t max_command_bytes = 4096;

void append_frame(std::string& out, std::uint8_t flags, std::string_view body) {
    if (body.size() > 255) {
        out.push_back(static_cast<char>(flags | flag_long));
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
    greeting[10] = 3;  // version 3.0: subscriptions are messages, no PING commands
    greeting.replace(12, 4, "NULL");
    return greeting;
}

std::string zmtp_ready(std::string_view socket_type) {
    std::string body = "\x05READY";
    const std::string_view name = "Socket-Type";
    body.push_back(static_cast<char>(name.size()));
    body.append(name);
    for (int shift = 24; shift >= 0; shift -= 8) {
        body.push_back(static_cast<char>((socket_type.size() >> shift) & 0xff));
    }
    body.append(socket_type);
    std::string out;
    append_frame(out, flag_command, body);
    return out;
}

void zmtp_append_message(std::string& out, const std::vector<std::string>& frames) {
    for (std::size_t i = 0; i < frames.size(); ++i) {
        append_frame(out, i + 1 < frames.size() ? flag_more : 0, frames[i]);
    }
}

zmtp_reader::zmtp_reader(zmtp_limits limits) : limits_(limits) {}

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
        if (remaining_ > max_command_bytes || (flags_ & flag_more)) {
            throw zmtp_error("a command frame of " + std::to_string(remaining_) + " bytes");
        }
        command_.clear();
        return;
    }
    if (!handshaken_) throw zmtp_error("a message before the peer's READY");
    in_message_ = true;
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
    in_message_ = false;
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
    if (in_message_) throw zmtp_error("a command inside a message");
    const auto name_size = body.empty() ? 0 : static_cast<std::uint8_t>(body[0]);
    if (body.size() < 1u + name_size) throw zmtp_error("a malformed command");
    const auto name = std::string_view(body).substr(1, name_size);
    if (name == "READY") {
        handshaken_ = true;
    } else if (name == "ERROR") {
        const auto rest = std::string_view(body).substr(1 + name_size);
        const auto reason =
            rest.empty() ? std::string_view() : rest.substr(1, static_cast<std::uint8_t>(rest[0]));
        throw zmtp_error("the peer refused the connection: " + std::string(reason));
    }
    // Other commands (none in ZMTP 3.0 after READY) are ignored.
}

}  // namespace ipybox::jupyter::detail
