#include "ipybox/core/json_decode.hpp"

#include <string>

#include "ipybox/core/utf8.hpp"

namespace ipybox::core {
namespace {

using reason = json_decode_error::reason;

// nlohmann's messages start with "[json.exception.parse_error.101] "; the rest says where.
std::string without_prefix(const std::string& text) {
    const auto pos = text.find("] ");
    return pos == std::string::npos ? text : text.substr(pos + 2);
}

bool starts_value(char c) {
    return c == '"' || c == '[' || c == '{' || c == '-' || (c >= '0' && c <= '9') || c == 't' ||
           c == 'f' || c == 'n';
}

}  // namespace

json_shape check_json_limits(std::string_view text, const json_limits& limits) {
    if (text.size() > limits.max_bytes) {
        throw json_decode_error(reason::too_large, std::to_string(text.size()) +
                                                       " bytes exceed the limit of " +
                                                       std::to_string(limits.max_bytes));
    }
    if (const auto bad = first_invalid_utf8(text); bad != text.size()) {
        throw json_decode_error(reason::invalid_utf8,
                                "invalid UTF-8 at byte " + std::to_string(bad));
    }
    json_shape shape;
    std::size_t depth = 0;
    bool in_string = false;
    bool escaped = false;
    // A value starts at a byte that can start one and follows a structural byte or the text's
    // start; digits and letters inside a number or a literal do not start another.
    bool expecting_value = true;
    for (const char c : text) {
        if (in_string) {
            if (escaped) {
                escaped = false;
            } else if (c == '\\') {
                escaped = true;
            } else if (c == '"') {
                in_string = false;
            }
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
        if (expecting_value && starts_value(c)) {
            if (++shape.values > limits.max_values && limits.max_values != 0) {
                throw json_decode_error(
                    reason::too_many_values,
                    "more than " + std::to_string(limits.max_values) + " values");
            }
        }
        expecting_value = c == '[' || c == '{' || c == ',' || c == ':';
        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > shape.depth) shape.depth = depth;
            if (shape.depth > limits.max_depth) {
                throw json_decode_error(
                    reason::too_deep,
                    "nesting deeper than " + std::to_string(limits.max_depth) + " levels");
            }
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return shape;
}

nlohmann::json decode_json(std::string_view text, const json_limits& limits) {
    check_json_limits(text, limits);
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& error) {
        throw json_decode_error(reason::syntax, "not JSON: " + without_prefix(error.what()));
    }
}

}  // namespace ipybox::core
