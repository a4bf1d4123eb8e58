#include "ipybox/codegen/python_literal.hpp"

#include <array>
#include <cmath>

#include "ipybox/core/utf8.hpp"

namespace ipybox::codegen {
namespace {

using core::append_utf8;
using core::decode_utf8;

// Code points that render as nothing, reorder text or break lines in editors although Python's
// tokenizer does not treat them as line ends. Escaping them keeps what a reader sees equal to
// what the string holds ("Trojan Source").
bool is_invisible(char32_t c) {
    struct range {
        char32_t first, last;
    };
    static constexpr std::array<range, 20> ranges{{
        {0x00AD, 0x00AD},   {0x034F, 0x034F},   {0x061C, 0x061C},   {0x115F, 0x1160},
        {0x17B4, 0x17B5},   {0x180B, 0x180F},   {0x200B, 0x200F},   {0x2028, 0x202F},
        {0x205F, 0x206F},   {0x3164, 0x3164},   {0xFDD0, 0xFDEF},   {0xFEFF, 0xFEFF},
        {0xFFA0, 0xFFA0},   {0xFFF0, 0xFFFF},   {0x1D173, 0x1D17A}, {0x1FFFE, 0x1FFFF},
        {0xE0000, 0xE0FFF}, {0xEFFFE, 0xEFFFF}, {0xFFFFE, 0xFFFFF}, {0x10FFFE, 0x10FFFF},
    }};
    for (const auto& r : ranges) {
        if (c >= r.first && c <= r.last) return true;
    }
    return false;
}

void append_hex(std::string& out, char prefix, char32_t c, int digits) {
    static constexpr std::string_view hex = "0123456789abcdef";
    out += '\\';
    out += prefix;
    for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) out += hex[(c >> shift) & 0xF];
}

// Appends `c` in escaped form when it needs one; returns false when the caller may write it raw.
// Newlines and tabs are left to the caller, which knows whether it writes a docstring.
bool append_escape(std::string& out, char32_t c) {
    switch (c) {
        case '\\':
            out += "\\\\";
            return true;
        case '\n':
            out += "\\n";
            return true;
        case '\r':
            out += "\\r";
            return true;
        case '\t':
            out += "\\t";
            return true;
        default:
            break;
    }
    if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) {
        append_hex(out, 'x', c, 2);
        return true;
    }
    if (is_invisible(c)) {
        if (c <= 0xFFFF) {
            append_hex(out, 'u', c, 4);
        } else {
            append_hex(out, 'U', c, 8);
        }
        return true;
    }
    return false;
}

// `ascii_only`: every code point past ASCII escaped too, as Python's ascii() writes it.
void append_literal_body(std::string& out, std::string_view text, char quote,
                         bool ascii_only = false) {
    for (std::size_t pos = 0; pos < text.size();) {
        const char32_t c = decode_utf8(text, pos);
        if (c == static_cast<char32_t>(quote)) {
            out += '\\';
            out += quote;
        } else if (append_escape(out, c)) {
            continue;
        } else if (ascii_only && c >= 0x80) {
            const bool wide = c > 0xFFFF;
            append_hex(out, c > 0xFF ? (wide ? 'U' : 'u') : 'x', c, c > 0xFF ? (wide ? 8 : 4) : 2);
        } else {
            append_utf8(out, c);
        }
    }
}

char quote_for(std::string_view text) {
    const bool has_single = text.find('\'') != std::string_view::npos;
    const bool has_double = text.find('"') != std::string_view::npos;
    return has_single && !has_double ? '"' : '\'';
}

constexpr std::size_t docstring_line_limit = 100;

bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\f' || c == '\v';
}

std::string_view trim_right(std::string_view line) {
    while (!line.empty() && is_blank(line.back())) line.remove_suffix(1);
    return line;
}

std::size_t leading_blanks(std::string_view line) {
    std::size_t n = 0;
    while (n < line.size() && is_blank(line[n])) ++n;
    return n;
}

void append_value(std::string& out, const nlohmann::json& value, int depth) {
    // Defaults nest only a few levels in practice; a hostile schema must not exhaust the stack.
    if (depth > 64) {
        out += "None";
        return;
    }
    switch (value.type()) {
        case nlohmann::json::value_t::boolean:
            out += value.get<bool>() ? "True" : "False";
            return;
        case nlohmann::json::value_t::number_integer:
            out += std::to_string(value.get<std::int64_t>());
            return;
        case nlohmann::json::value_t::number_unsigned:
            out += std::to_string(value.get<std::uint64_t>());
            return;
        case nlohmann::json::value_t::number_float: {
            const double number = value.get<double>();
            if (std::isnan(number)) {
                out += "None";
            } else if (std::isinf(number)) {
                out += number > 0 ? "1e999" : "-1e999";
            } else {
                out += value.dump();  // shortest round-trip form, a valid Python float literal
            }
            return;
        }
        case nlohmann::json::value_t::string:
            out += python_string_literal(value.get_ref<const std::string&>());
            return;
        case nlohmann::json::value_t::array: {
            out += '[';
            bool first = true;
            for (const auto& item : value) {
                if (!first) out += ", ";
                first = false;
                append_value(out, item, depth + 1);
            }
            out += ']';
            return;
        }
        case nlohmann::json::value_t::object: {
            out += '{';
            bool first = true;
            for (const auto& [key, item] : value.items()) {
                if (!first) out += ", ";
                first = false;
                out += python_string_literal(key);
                out += ": ";
                append_value(out, item, depth + 1);
            }
            out += '}';
            return;
        }
        default:
            out += "None";
            return;
    }
}

// Breaks lines longer than `width` bytes at spaces; continuation lines keep the line's own
// indentation. Only whitespace changes. Lines without a usable space stay long.
std::string wrap_long_lines(const std::string& text, std::size_t width) {
    std::string out;
    std::size_t start = 0;
    for (;;) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string_view line(text.data() + start, end - start);
        const std::size_t margin = leading_blanks(line);
        const std::string_view prefix = line.substr(0, margin);
        std::size_t budget = width;
        std::size_t floor = margin;  // never break inside the indentation
        while (line.size() > budget) {
            const auto space = line.rfind(' ', budget);
            if (space == std::string_view::npos || space <= floor) break;
            out += trim_right(line.substr(0, space));
            out += '\n';
            out += prefix;
            line.remove_prefix(space + 1);
            while (!line.empty() && line[0] == ' ') line.remove_prefix(1);
            budget = width > margin ? width - margin : 1;
            floor = 0;
        }
        out += line;
        if (end == text.size()) return out;
        out += '\n';
        start = end + 1;
    }
}

}  // namespace

std::string python_string_literal(std::string_view text) {
    const char quote = quote_for(text);
    std::string out;
    out.reserve(text.size() + 2);
    out += quote;
    append_literal_body(out, text, quote);
    out += quote;
    return out;
}

std::string python_ascii_literal(std::string_view text) {
    const char quote = quote_for(text);
    std::string out;
    out += quote;
    append_literal_body(out, text, quote, true);
    out += quote;
    return out;
}

std::vector<std::string> python_string_literal_lines(std::string_view text, std::size_t width) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        // Cut after a newline, or after the last space before `width`; never inside a word, so
        // never inside a multi-byte character or an escape.
        std::size_t cut = text.size();
        std::size_t last_space = std::string_view::npos;
        for (std::size_t i = start; i < text.size(); ++i) {
            if (text[i] == '\n') {
                cut = i + 1;
                break;
            }
            if (i - start >= width && last_space != std::string_view::npos) {
                cut = last_space + 1;
                break;
            }
            if (text[i] == ' ') last_space = i;
        }
        lines.push_back(python_string_literal(text.substr(start, cut - start)));
        start = cut;
    }
    if (lines.empty()) lines.push_back(python_string_literal(""));
    return lines;
}

std::string clean_docstring_text(std::string_view text) {
    std::string normalised;
    normalised.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\r') {
            normalised += '\n';
            if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
        } else {
            normalised += text[i];
        }
    }
    std::vector<std::string_view> lines;
    std::string_view rest = normalised;
    for (std::size_t end; (end = rest.find('\n')) != std::string_view::npos;) {
        lines.push_back(trim_right(rest.substr(0, end)));
        rest.remove_prefix(end + 1);
    }
    lines.push_back(trim_right(rest));

    std::size_t margin = std::string_view::npos;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        if (!lines[i].empty()) margin = std::min(margin, leading_blanks(lines[i]));
    }
    lines[0].remove_prefix(leading_blanks(lines[0]));
    for (std::size_t i = 1; i < lines.size(); ++i) {
        if (!lines[i].empty()) lines[i].remove_prefix(margin);
    }
    std::size_t first = 0;
    std::size_t last = lines.size();
    while (first < last && lines[first].empty()) ++first;
    while (last > first && lines[last - 1].empty()) --last;
    std::string cleaned;
    for (std::size_t i = first; i < last; ++i) {
        if (i > first) cleaned += '\n';
        cleaned += lines[i];
    }
    return cleaned;
}

std::string python_docstring(std::string_view text, std::size_t indent) {
    const std::size_t width =
        indent + 12 < docstring_line_limit ? docstring_line_limit - indent - 3 : 40;
    const std::string cleaned = wrap_long_lines(clean_docstring_text(text), width);
    const std::string padding(indent, ' ');
    constexpr std::string_view triple_quote = R"(""")";
    std::string out(triple_quote);
    bool multi_line = false;
    for (std::size_t pos = 0; pos < cleaned.size();) {
        const std::size_t here = pos;
        const char32_t c = decode_utf8(cleaned, pos);
        if (c == '\n') {
            multi_line = true;
            out += '\n';
            if (pos < cleaned.size() && cleaned[pos] != '\n') out += padding;
        } else if (c == '\t') {
            out += '\t';
        } else if (c == '"') {
            // A quote that could start a run of three, or touch the closing quotes, is escaped;
            // every other quote stays readable.
            const bool next_is_quote = here + 1 < cleaned.size() && cleaned[here + 1] == '"';
            if (next_is_quote || here + 1 == cleaned.size()) out += '\\';
            out += '"';
        } else if (!append_escape(out, c)) {
            append_utf8(out, c);
        }
    }
    if (multi_line) {
        out += '\n';
        out += padding;
    }
    out += triple_quote;
    return out;
}

std::string python_value_literal(const nlohmann::json& value) {
    std::string out;
    append_value(out, value, 0);
    return out;
}

}  // namespace ipybox::codegen
