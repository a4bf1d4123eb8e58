#include "ipybox/mcp/jsonrpc/envelope_scan.hpp"

#include <charconv>

namespace ipybox::mcp::jsonrpc {
namespace {

constexpr std::size_t max_key_bytes = 8;  // "method" and "result" are the longest we look for
constexpr std::size_t max_id_bytes = 256;

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool is_number_byte(char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

}  // namespace

void envelope_scanner::feed(std::string_view bytes) {
    for (const char c : bytes) {
        if (finished_) return;
        step(c);
    }
}

void envelope_scanner::step(char c) {
    if (in_string_) {
        if (escaped_) {
            escaped_ = false;
        } else if (c == '\\') {
            escaped_ = true;
            capture_spoiled_ = true;
        } else if (c == '"') {
            in_string_ = false;
            end_string();
        } else if (capture_ != capture::none && !capture_spoiled_) {
            const auto limit = capture_ == capture::key ? max_key_bytes : max_id_bytes;
            if (captured_.size() < limit) {
                captured_.push_back(c);
            } else {
                capture_spoiled_ = true;
            }
        }
        return;
    }
    if (capture_ == capture::id_number) {
        if (is_number_byte(c)) {
            if (captured_.size() < 32) captured_.push_back(c);
            return;
        }
        end_number();
    }
    if (is_space(c)) return;
    if (depth_ == 0) {
        if (c == '{') {
            depth_ = 1;
            expect_ = expect::key;
        } else {
            finished_ = true;
        }
        return;
    }
    const bool member_level = depth_ == 1;
    switch (c) {
        case '"':
            in_string_ = true;
            capture_spoiled_ = false;
            captured_.clear();
            if (member_level && expect_ == expect::key) {
                capture_ = capture::key;
            } else if (member_level && expect_ == expect::value) {
                capture_ = value_of_id_ ? capture::id_string : capture::none;
                expect_ = expect::after_value;
            } else {
                capture_ = capture::none;
            }
            return;
        case '{':
        case '[':
            if (member_level && expect_ == expect::value) expect_ = expect::after_value;
            ++depth_;
            return;
        case '}':
        case ']':
            if (--depth_ == 0) finished_ = true;
            return;
        case ':':
            if (member_level && expect_ == expect::colon) expect_ = expect::value;
            return;
        case ',':
            if (member_level) expect_ = expect::key;
            return;
        default:
            if (member_level && expect_ == expect::value) {
                expect_ = expect::after_value;
                if (value_of_id_ && (c == '-' || (c >= '0' && c <= '9'))) {
                    capture_ = capture::id_number;
                    captured_.assign(1, c);
                }
            }
            return;
    }
}

void envelope_scanner::end_string() {
    const auto kind = std::exchange(capture_, capture::none);
    if (kind == capture::key) {
        expect_ = expect::colon;
        value_of_id_ = false;
        if (capture_spoiled_) return;
        if (captured_ == "id") value_of_id_ = true;
        if (captured_ == "method") hints_.has_method = true;
        if (captured_ == "result") hints_.has_result = true;
        if (captured_ == "error") hints_.has_error = true;
        return;
    }
    if (kind == capture::id_string) {
        hints_.id.reset();
        if (!capture_spoiled_) hints_.id = request_id(captured_);
    }
}

void envelope_scanner::end_number() {
    capture_ = capture::none;
    hints_.id.reset();
    std::int64_t value = 0;
    const auto* first = captured_.data();
    const auto* last = first + captured_.size();
    const auto [end, error] = std::from_chars(first, last, value);
    if (error == std::errc() && end == last) hints_.id = request_id(value);
}

envelope_hints scan_envelope(std::string_view text) {
    envelope_scanner scanner;
    scanner.feed(text);
    return scanner.hints();
}

}  // namespace ipybox::mcp::jsonrpc
