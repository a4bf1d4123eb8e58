#include "ipybox/core/text.hpp"

namespace ipybox::core {

std::string strip_ansi(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c != '\x1b') {
            out.push_back(c);
            ++i;
            continue;
        }
        if (i + 1 >= text.size()) break;
        const char kind = text[i + 1];
        if (kind == '[') {  // CSI: parameters and intermediates, then a final byte in 0x40..0x7e
            std::size_t j = i + 2;
            while (j < text.size() && !(text[j] >= 0x40 && text[j] <= 0x7e)) ++j;
            i = j + 1;
        } else if (kind == ']') {  // OSC: ends with BEL or ESC backslash
            std::size_t j = i + 2;
            while (j < text.size() && text[j] != '\x07' &&
                   !(text[j] == '\x1b' && j + 1 < text.size() && text[j + 1] == '\\')) {
                ++j;
            }
            i = (j < text.size() && text[j] == '\x07') ? j + 1 : j + 2;
        } else {
            i += 2;
        }
    }
    return out;
}

std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    if (lead < 0x80) return 1;
    std::size_t length = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) {
        length = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        length = 3;
        if (lead == 0xe0) low = 0xa0;
        if (lead == 0xed) high = 0x9f;  // no UTF-16 surrogates
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        length = 4;
        if (lead == 0xf0) low = 0x90;
        if (lead == 0xf4) high = 0x8f;
    } else {
        return 0;
    }
    if (i + length > text.size()) return 0;
    if (byte(i + 1) < low || byte(i + 1) > high) return 0;
    for (std::size_t k = 2; k < length; ++k) {
        if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) return 0;
    }
    return length;
}

std::string sanitize_utf8(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        const std::size_t length = utf8_sequence_length(text, i);
        if (length == 0) {
            out += "\xef\xbf\xbd";
            ++i;
        } else {
            out.append(text.substr(i, length));
            i += length;
        }
    }
    return out;
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

std::size_t utf8_complete_prefix_length(std::string_view text) {
    // Find the lead byte of the last sequence (at most three continuation bytes back).
    std::size_t lead = text.size();
    for (int steps = 0; steps < 4 && lead > 0; ++steps) {
        --lead;
        if ((static_cast<unsigned char>(text[lead]) & 0xc0) != 0x80) break;
    }
    if (lead == text.size()) return text.size();
    const auto c = static_cast<unsigned char>(text[lead]);
    std::size_t needed = 1;
    if (c >= 0xf0) {
        needed = 4;
    } else if (c >= 0xe0) {
        needed = 3;
    } else if (c >= 0xc0) {
        needed = 2;
    }
    return text.size() - lead >= needed ? text.size() : lead;
}

}  // namespace ipybox::core
