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

}  // namespace ipybox::core
