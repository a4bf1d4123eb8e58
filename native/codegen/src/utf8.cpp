#include "ipybox/codegen/detail/utf8.hpp"

namespace ipybox::codegen::detail {

char32_t decode_utf8(std::string_view text, std::size_t& pos) {
    const auto lead = static_cast<unsigned char>(text[pos]);
    if (lead < 0x80) {
        ++pos;
        return lead;
    }
    std::size_t length = 0;
    char32_t code_point = 0;
    char32_t minimum = 0;
    if ((lead & 0xE0) == 0xC0) {
        length = 2, code_point = lead & 0x1F, minimum = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
        length = 3, code_point = lead & 0x0F, minimum = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
        length = 4, code_point = lead & 0x07, minimum = 0x10000;
    } else {
        ++pos;
        return replacement_character;
    }
    if (pos + length > text.size()) {
        ++pos;
        return replacement_character;
    }
    for (std::size_t i = 1; i < length; ++i) {
        const auto continuation = static_cast<unsigned char>(text[pos + i]);
        if ((continuation & 0xC0) != 0x80) {
            ++pos;
            return replacement_character;
        }
        code_point = (code_point << 6) | (continuation & 0x3F);
    }
    // Overlong forms could smuggle ASCII (a quote, a backslash) past a byte-level check, and
    // surrogates cannot be written to a UTF-8 source file: both are refused, not decoded.
    if (code_point < minimum || code_point > 0x10FFFF ||
        (code_point >= 0xD800 && code_point <= 0xDFFF)) {
        ++pos;
        return replacement_character;
    }
    pos += length;
    return code_point;
}

}  // namespace ipybox::codegen::detail
