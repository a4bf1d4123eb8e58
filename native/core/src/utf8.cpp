#include "ipybox/core/utf8.hpp"

#include <algorithm>

namespace ipybox::core {

std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    if (lead < 0x80) return 1;
    std::size_t length = 0;
    // The range of the second byte is narrower after some leads: that is where overlong forms,
    // surrogates and values past U+10FFFF are refused.
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) low = 0xA0;
        if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) low = 0x90;
        if (lead == 0xF4) high = 0x8F;
    } else {
        return 0;
    }
    if (i + length > text.size()) return 0;
    if (byte(i + 1) < low || byte(i + 1) > high) return 0;
    for (std::size_t k = 2; k < length; ++k) {
        if (!is_utf8_continuation(text[i + k])) return 0;
    }
    return length;
}

char32_t decode_utf8(std::string_view text, std::size_t& pos) {
    const std::size_t length = utf8_sequence_length(text, pos);
    if (length == 0) {
        ++pos;
        return replacement_character;
    }
    const auto byte = [&](std::size_t k) { return static_cast<char32_t>(text[pos + k]) & 0xFF; };
    char32_t code_point = 0;
    switch (length) {
        case 1:
            code_point = byte(0);
            break;
        case 2:
            code_point = ((byte(0) & 0x1F) << 6) | (byte(1) & 0x3F);
            break;
        case 3:
            code_point = ((byte(0) & 0x0F) << 12) | ((byte(1) & 0x3F) << 6) | (byte(2) & 0x3F);
            break;
        default:
            code_point = ((byte(0) & 0x07) << 18) | ((byte(1) & 0x3F) << 12) |
                         ((byte(2) & 0x3F) << 6) | (byte(3) & 0x3F);
            break;
    }
    pos += length;
    return code_point;
}

void append_utf8(std::string& out, char32_t code_point) {
    const auto put = [&](char32_t bits) { out += static_cast<char>(bits); };
    if (code_point < 0x80) {
        put(code_point);
    } else if (code_point < 0x800) {
        put(0xC0 | (code_point >> 6));
        put(0x80 | (code_point & 0x3F));
    } else if (code_point < 0x10000) {
        put(0xE0 | (code_point >> 12));
        put(0x80 | ((code_point >> 6) & 0x3F));
        put(0x80 | (code_point & 0x3F));
    } else {
        put(0xF0 | (code_point >> 18));
        put(0x80 | ((code_point >> 12) & 0x3F));
        put(0x80 | ((code_point >> 6) & 0x3F));
        put(0x80 | (code_point & 0x3F));
    }
}

std::size_t first_invalid_utf8(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size()) {
        // ASCII runs are the common case: skip them without the sequence check.
        if (static_cast<unsigned char>(text[i]) < 0x80) {
            ++i;
            continue;
        }
        const std::size_t length = utf8_sequence_length(text, i);
        if (length == 0) return i;
        i += length;
    }
    return text.size();
}

std::string sanitize_utf8(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        const std::size_t length = utf8_sequence_length(text, i);
        if (length == 0) {
            append_utf8(out, replacement_character);
            ++i;
        } else {
            out.append(text.substr(i, length));
            i += length;
        }
    }
    return out;
}

std::size_t utf8_complete_prefix_length(std::string_view text) {
    // The lead byte of the last sequence is at most three continuation bytes back.
    std::size_t lead = text.size();
    for (int steps = 0; steps < 4 && lead > 0; ++steps) {
        --lead;
        if (!is_utf8_continuation(text[lead])) break;
    }
    if (lead == text.size()) return text.size();
    const auto c = static_cast<unsigned char>(text[lead]);
    std::size_t needed = 1;
    if (c >= 0xF0) {
        needed = 4;
    } else if (c >= 0xE0) {
        needed = 3;
    } else if (c >= 0xC0) {
        needed = 2;
    }
    return text.size() - lead >= needed ? text.size() : lead;
}

std::string_view utf8_truncate(std::string_view text, std::size_t max_bytes) {
    if (text.size() <= max_bytes) return text;
    const auto head = text.substr(0, max_bytes);
    return head.substr(0, utf8_complete_prefix_length(head));
}

std::string_view utf8_tail(std::string_view text, std::size_t max_bytes) {
    if (text.size() > max_bytes) text.remove_prefix(text.size() - max_bytes);
    while (!text.empty() && is_utf8_continuation(text.front())) text.remove_prefix(1);
    return text;
}

std::size_t count_code_points(std::string_view text) {
    return static_cast<std::size_t>(
        std::count_if(text.begin(), text.end(), [](char c) { return !is_utf8_continuation(c); }));
}

std::size_t code_point_offset(std::string_view text, std::size_t index) {
    std::size_t seen = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (is_utf8_continuation(text[i])) continue;
        if (seen == index) return i;
        ++seen;
    }
    return text.size();
}

}  // namespace ipybox::core
