#include "ipybox/jupyter/message.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <optional>

#include "ipybox/core/random.hpp"

namespace ipybox::jupyter {
namespace {

std::string string_field(const json& object, const char* key) {
    if (!object.is_object()) return {};
    const auto it = object.find(key);
    if (it == object.end() || !it->is_string()) return {};
    return it->get<std::string>();
}

}  // namespace

std::string message::msg_type() const {
    return string_field(header, "msg_type");
}
std::string message::msg_id() const {
    return string_field(header, "msg_id");
}
std::string message::parent_msg_id() const {
    return string_field(parent_header, "msg_id");
}

std::string utc_timestamp() {
    using namespace std::chrono;
    const auto now = system_clock::now();
    const auto micros = duration_cast<microseconds>(now.time_since_epoch()).count() % 1000000;
    const std::time_t seconds = system_clock::to_time_t(now);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ",
                  utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min,
                  utc.tm_sec, static_cast<long long>(micros));
    return buffer;
}

std::optional<long long> parse_timestamp_micros(const std::string& text) {
    std::tm parts{};
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    int consumed = 0;
    if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &year, &month, &day, &hour, &minute,
                    &second, &consumed) != 6) {
        return std::nullopt;
    }
    long long micros = 0;
    std::size_t pos = static_cast<std::size_t>(consumed);
    if (pos < text.size() && text[pos] == '.') {
        int digits = 0;
        ++pos;
        while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
            if (digits < 6) {
                micros = micros * 10 + (text[pos] - '0');
                ++digits;
            }
            ++pos;
        }
        while (digits++ < 6) micros *= 10;
    }
    parts.tm_year = year - 1900;
    parts.tm_mon = month - 1;
    parts.tm_mday = day;
    parts.tm_hour = hour;
    parts.tm_min = minute;
    parts.tm_sec = second;
    const long long seconds = static_cast<long long>(timegm(&parts));
    return seconds * 1000000 + micros;
}

message make_request(const std::string& msg_type, json content, const std::string& session_id) {
    message msg;
    msg.header = {{"msg_id", core::new_uuid()}, {"msg_type", msg_type},
                  {"session", session_id},      {"username", "ipybox"},
                  {"date", utc_timestamp()},    {"version", protocol_version}};
    msg.content = std::move(content);
    return msg;
}

}  // namespace ipybox::jupyter
