#include "ipybox/mcp/http/sse_parser.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

namespace ipybox::mcp::http {
namespace {

constexpr std::string_view byte_order_mark = "\xEF\xBB\xBF";
// Beyond a day a retry value is surely a mistake; clamp rather than overflow.
constexpr std::chrono::milliseconds max_retry = std::chrono::hours(24);

}  // namespace

sse_parser::sse_parser(std::size_t max_event_bytes) : max_event_bytes_(max_event_bytes) {}

std::vector<sse_event> sse_parser::feed(std::string_view bytes) {
    std::vector<sse_event> out;
    while (!bom_checked_ && !bytes.empty()) {
        if (bytes[0] == byte_order_mark[bom_matched_]) {
            bytes.remove_prefix(1);
            if (++bom_matched_ == byte_order_mark.size()) bom_checked_ = true;
            continue;
        }
        // Not a BOM after all: what matched so far is content.
        bom_checked_ = true;
        process(byte_order_mark.substr(0, bom_matched_), out);
    }
    process(bytes, out);
    return out;
}

void sse_parser::finish() {
    discarded_line_ = discarded_line::undecided;
    discarded_field_.clear();
    line_.clear();
    data_.clear();
    type_.clear();
    saw_data_ = false;
    discarding_ = false;
    after_cr_ = false;
}

void sse_parser::process(std::string_view bytes, std::vector<sse_event>& out) {
    while (!bytes.empty()) {
        if (after_cr_ && bytes[0] == '\n') {
            bytes.remove_prefix(1);
            after_cr_ = false;
            continue;
        }
        after_cr_ = false;
        const auto end = bytes.find_first_of("\r\n");
        append_to_line(bytes.substr(0, end));
        if (end == std::string_view::npos) return;
        after_cr_ = bytes[end] == '\r';
        bytes.remove_prefix(end + 1);
        end_line(out);
    }
}

void sse_parser::append_to_line(std::string_view bytes) {
    if (bytes.empty()) return;
    if (discarding_) {
        discard_line_has_content_ = true;
        scan_discarded(bytes);
        return;
    }
    line_.append(bytes);
    if (over_limit()) {
        const auto partial = std::move(line_);
        start_discarding();
        discard_line_has_content_ = true;
        scan_discarded(partial);  // the line goes on: the rest of it follows the same way
    }
}

// Data lines of a discarded event go to the envelope scan; the field name is read from the first
// five bytes of each line. The space after "data:" and the line breaks are whitespace to JSON.
void sse_parser::scan_discarded(std::string_view bytes) {
    constexpr std::string_view data_field = "data:";
    if (discarded_line_ == discarded_line::undecided) {
        const auto wanted = data_field.size() - discarded_field_.size();
        discarded_field_.append(bytes.substr(0, wanted));
        bytes.remove_prefix(std::min(wanted, bytes.size()));
        if (discarded_field_.size() < data_field.size()) return;
        discarded_line_ =
            discarded_field_ == data_field ? discarded_line::data : discarded_line::other;
    }
    if (discarded_line_ == discarded_line::data) discarded_envelope_.feed(bytes);
}

std::vector<jsonrpc::envelope_hints> sse_parser::take_oversized() {
    return std::exchange(oversized_, {});
}

void sse_parser::end_line(std::vector<sse_event>& out) {
    if (discarding_) {
        if (!discard_line_has_content_) {  // the blank line that ends the oversized event
            discarding_ = false;
            ++discarded_;
            oversized_.push_back(discarded_envelope_.hints());
        }
        if (discarded_line_ == discarded_line::data) discarded_envelope_.feed("\n");
        discarded_line_ = discarded_line::undecided;
        discarded_field_.clear();
        discard_line_has_content_ = false;
        return;
    }
    if (line_.empty()) {
        dispatch(out);
        return;
    }
    const std::string line = std::move(line_);
    line_.clear();
    if (line[0] == ':') return;  // comment
    const auto colon = line.find(':');
    std::string_view name(line);
    std::string_view value;
    if (colon != std::string::npos) {
        name = name.substr(0, colon);
        value = std::string_view(line).substr(colon + 1);
        if (value.starts_with(' ')) value.remove_prefix(1);
    }
    on_field(name, value);
    if (over_limit()) start_discarding();
}

void sse_parser::on_field(std::string_view name, std::string_view value) {
    if (name == "event") {
        type_ = std::string(value);
    } else if (name == "data") {
        data_.append(value);
        data_.push_back('\n');
        saw_data_ = true;
    } else if (name == "id") {
        if (value.find('\0') == std::string_view::npos) id_buffer_ = std::string(value);
    } else if (name == "retry") {
        if (value.empty() || !std::all_of(value.begin(), value.end(),
                                          [](unsigned char c) { return std::isdigit(c) != 0; })) {
            return;
        }
        std::chrono::milliseconds::rep millis = 0;
        for (const char c : value) {
            millis = millis * 10 + (c - '0');
            if (millis > max_retry.count()) {
                millis = max_retry.count();
                break;
            }
        }
        retry_ = std::chrono::milliseconds(millis);
    }
}

void sse_parser::dispatch(std::vector<sse_event>& out) {
    last_event_id_ = id_buffer_;
    if (!saw_data_) {
        type_.clear();
        return;
    }
    if (!data_.empty() && data_.back() == '\n') data_.pop_back();
    sse_event event;
    if (!type_.empty()) event.type = std::move(type_);
    event.data = std::move(data_);
    event.id = last_event_id_;
    out.push_back(std::move(event));
    data_.clear();
    type_.clear();
    saw_data_ = false;
}

void sse_parser::start_discarding() {
    discarding_ = true;
    discard_line_has_content_ = false;
    // The data lines buffered so far begin the discarded event's envelope.
    discarded_envelope_ = {};
    discarded_envelope_.feed(data_);
    discarded_line_ = discarded_line::undecided;
    discarded_field_.clear();
    line_.clear();
    data_.clear();
    type_.clear();
    saw_data_ = false;
}

bool sse_parser::over_limit() const {
    return line_.size() + data_.size() + type_.size() > max_event_bytes_;
}

}  // namespace ipybox::mcp::http
