#include "ipybox/core/untrusted_text.hpp"

#include <cstdint>

#include "ipybox/core/clipping.hpp"
#include "ipybox/core/utf8.hpp"

namespace ipybox::core {
namespace {

// Code points that show nothing, show as something else, or move text around: escaped.
struct code_point_range {
    std::uint32_t first;
    std::uint32_t last;
};
constexpr code_point_range hidden_ranges[] = {
    {0x0080, 0x00A0},     // C1 controls (CSI, NEL, ...) and the no-break space
    {0x00AD, 0x00AD},     // soft hyphen
    {0x034F, 0x034F},     // combining grapheme joiner
    {0x061C, 0x061C},     // Arabic letter mark
    {0x115F, 0x1160},     // Hangul fillers
    {0x1680, 0x1680},     // Ogham space mark
    {0x17B4, 0x17B5},     // Khmer inherent vowels
    {0x180B, 0x180F},     // Mongolian variation selectors and vowel separator
    {0x2000, 0x200F},     // spaces of other widths, zero-width characters, LRM, RLM
    {0x2028, 0x202F},     // line and paragraph separators, bidi embeddings and overrides
    {0x205F, 0x206F},     // word joiner, invisible operators, bidi isolates
    {0x3000, 0x3000},     // ideographic space
    {0x3164, 0x3164},     // Hangul filler
    {0xE000, 0xF8FF},     // private use
    {0xFE00, 0xFE0F},     // variation selectors
    {0xFEFF, 0xFEFF},     // zero-width no-break space (BOM)
    {0xFFA0, 0xFFA0},     // halfwidth Hangul filler
    {0xFFF0, 0xFFFB},     // interlinear annotation controls
    {0xFFFE, 0xFFFF},     // noncharacters
    {0x1BCA0, 0x1BCA3},   // shorthand format controls
    {0x1D173, 0x1D17A},   // musical format controls
    {0xE0000, 0xE0FFF},   // tag characters, variation selectors supplement
    {0xF0000, 0x10FFFF},  // supplementary private use
};

bool is_hidden(std::uint32_t code_point) {
    for (const auto& range : hidden_ranges) {
        if (code_point >= range.first && code_point <= range.last) return true;
    }
    return false;
}

void append_hex(std::string& out, std::uint32_t value, int digits) {
    constexpr const char* hex = "0123456789abcdef";
    for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4)
        out.push_back(hex[(value >> shift) & 0xF]);
}

// Appends one character (or one stray byte, `sequence` then of length 1 and invalid) as shown.
void append_shown(std::string& out, std::string_view sequence, bool valid,
                  const untrusted_text_options& options) {
    if (!valid) {
        out += "\\x";
        append_hex(out, static_cast<unsigned char>(sequence[0]), 2);
        return;
    }
    std::size_t start = 0;
    const std::uint32_t code_point = decode_utf8(sequence, start);
    if (code_point >= 0x20 && code_point < 0x7F) {
        if ((code_point == '\\' && options.escape_backslashes) ||
            (code_point == '"' && options.quoted)) {
            out.push_back('\\');
        }
        out.push_back(static_cast<char>(code_point));
        return;
    }
    if (code_point < 0x80) {
        if ((code_point == '\n' || code_point == '\t') && options.keep_line_breaks) {
            out.push_back(static_cast<char>(code_point));
        } else if (code_point == '\n') {
            out += "\\n";
        } else if (code_point == '\r') {
            out += "\\r";
        } else if (code_point == '\t') {
            out += "\\t";
        } else {
            out += "\\x";
            append_hex(out, code_point, 2);
        }
        return;
    }
    if (!is_hidden(code_point)) {
        out.append(sequence);
    } else if (code_point <= 0xFFFF) {
        out += "\\u";
        append_hex(out, code_point, 4);
    } else {
        out += "\\U";
        append_hex(out, code_point, 8);
    }
}

// Calls `each(sequence, valid)` for every character of `text`, a stray byte being one.
template <typename Each>
void for_each_character(std::string_view text, Each&& each) {
    std::size_t i = 0;
    while (i < text.size()) {
        const auto length = utf8_sequence_length(text, i);
        each(text.substr(i, length == 0 ? 1 : length), length != 0);
        i += length == 0 ? 1 : length;
    }
}

std::string cut_marker(std::size_t cut, std::size_t total) {
    return "...[" + std::to_string(cut) + " of " + std::to_string(total) + " characters cut]...";
}

// A cut keeps the first half of max_characters (the odd one included) and the last half.
std::size_t head_characters(std::size_t max_characters) {
    return (max_characters + 1) / 2;
}
std::size_t tail_characters(std::size_t max_characters) {
    return max_characters / 2;
}

}  // namespace

std::string render_untrusted(std::string_view text, const untrusted_text_options& options) {
    std::size_t total = 0;
    if (options.max_characters > 0)
        for_each_character(text, [&](std::string_view, bool) { ++total; });
    const bool cut = options.max_characters > 0 && total > options.max_characters;
    const std::size_t head = cut ? head_characters(options.max_characters) : total;
    const std::size_t tail_from = cut ? total - tail_characters(options.max_characters) : total;

    std::string out;
    out.reserve(text.size() + 2);
    if (options.quoted) out.push_back('"');
    std::size_t index = 0;
    for_each_character(text, [&](std::string_view sequence, bool valid) {
        if (!cut || index < head || index >= tail_from) append_shown(out, sequence, valid, options);
        if (cut && index + 1 == head) {
            out += cut_marker(tail_from - head, total);
        }
        ++index;
    });
    if (options.quoted) out.push_back('"');
    return out;
}

std::string quote_untrusted(std::string_view text, std::size_t max_characters) {
    untrusted_text_options options;
    options.max_characters = max_characters;
    options.quoted = true;
    return render_untrusted(text, options);
}

std::string cut_in_middle(std::string_view text, std::size_t max_characters) {
    if (max_characters == 0) return std::string(text);
    const std::size_t head = head_characters(max_characters);
    const std::size_t tail = tail_characters(max_characters);
    return clip_characters(text, head, tail,
                           [&](std::size_t cut) { return cut_marker(cut, head + cut + tail); });
}

std::string render_untrusted_block(std::string_view text, std::string_view gutter) {
    untrusted_text_options options;
    options.keep_line_breaks = true;
    const auto rendered = render_untrusted(text, options);
    std::string out(gutter);
    for (const char c : rendered) {
        out.push_back(c);
        if (c == '\n') out.append(gutter);
    }
    return out;
}

}  // namespace ipybox::core
