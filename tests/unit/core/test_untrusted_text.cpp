#include <doctest/doctest.h>

#include "ipybox/core/untrusted_text.hpp"

using namespace ipybox::core;

namespace {

// True if `text` holds a byte a terminal acts on: C0 controls but line feed and tab, DEL, and
// the UTF-8 form of a C1 control (0xC2 0x80-0x9F).
bool has_terminal_control(std::string_view text) {
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) return true;
        if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) < 0xA0)
            return true;
    }
    return false;
}

}  // namespace

TEST_SUITE("core.untrusted_text") {
    TEST_CASE("plain text, accents and emoji are shown as they are") {
        CHECK(render_untrusted("read_file") == "read_file");
        CHECK(render_untrusted("caf\xc3\xa9 \xf0\x9f\x98\x80") == "caf\xc3\xa9 \xf0\x9f\x98\x80");
    }

    TEST_CASE("escape sequences are shown, not sent: clear screen, conceal, OSC 52") {
        const std::string hostile =
            "\x1b[2J\x1b[H\x1b[8mhidden\x1b]52;c;Y3VybA==\x07\xc2\x9b"
            "31m";
        const auto shown = render_untrusted(hostile);
        CHECK(shown == "\\x1b[2J\\x1b[H\\x1b[8mhidden\\x1b]52;c;Y3VybA==\\x07\\u009b31m");
        CHECK_FALSE(has_terminal_control(shown));
        CHECK(has_terminal_control(hostile));  // the control: the raw text would act
    }

    TEST_CASE("line breaks are escaped unless kept on purpose, CR always") {
        CHECK(render_untrusted("a\nb\rc\td") == "a\\nb\\rc\\td");
        untrusted_text_options keep;
        keep.keep_line_breaks = true;
        CHECK(render_untrusted("a\nb\rc\td", keep) == "a\nb\\rc\td");
        CHECK(render_untrusted("a\xe2\x80\xa8"
                               "b\xc2\x85"
                               "c",
                               keep) == "a\\u2028b\\u0085c");
    }

    TEST_CASE("bidi overrides, zero-width and odd spaces are made visible") {
        CHECK(render_untrusted("abc\xe2\x80\xae"
                               "fdp.exe") == "abc\\u202efdp.exe");
        CHECK(render_untrusted("a\xe2\x80\x8b"
                               "b\xe2\x81\xa6"
                               "c") == "a\\u200bb\\u2066c");
        CHECK(render_untrusted("a\xc2\xa0"
                               "b\xef\xbb\xbf") == "a\\u00a0b\\ufeff");
        CHECK(render_untrusted("tag\xf3\xa0\x81\x81") == "tag\\U000e0041");
        CHECK(render_untrusted("soft\xc2\xad") == "soft\\u00ad");
    }

    TEST_CASE("bytes that are not UTF-8 are shown as hex escapes, the output is valid UTF-8") {
        CHECK(render_untrusted("a\xff"
                               "b\xed\xa0\x80") == "a\\xffb\\xed\\xa0\\x80");
        CHECK(render_untrusted("\xe2\x82") == "\\xe2\\x82");
    }

    TEST_CASE("a backslash is doubled, so an escape always stands for one character") {
        CHECK(render_untrusted("\\x1b") == "\\\\x1b");
        CHECK(render_untrusted("\x1b") == "\\x1b");
        // Without that (a message with rendered parts), controls are still escaped.
        untrusted_text_options again;
        again.escape_backslashes = false;
        CHECK(render_untrusted(render_untrusted("\x1b\\"), again) == "\\x1b\\\\");
        CHECK(render_untrusted("\\x1b \x1b", again) == "\\x1b \\x1b");
    }

    TEST_CASE("quoted text cannot end its quotes") {
        CHECK(quote_untrusted("say \"hi\"") == "\"say \\\"hi\\\"\"");
        CHECK(quote_untrusted("") == "\"\"");
        CHECK(render_untrusted("say \"hi\"") == "say \"hi\"");
    }

    TEST_CASE("long text is cut in the middle between characters, with its length") {
        const std::string text = std::string(10, 'a') + std::string(100, 'm') + "\xc3\xa9zzzz";
        untrusted_text_options options;
        options.max_characters = 10;
        CHECK(render_untrusted(text, options) ==
              "aaaaa...[105 of 115 characters cut]...\xc3\xa9zzzz");
        options.max_characters = 115;
        CHECK(render_untrusted(text, options) == text);
        CHECK(quote_untrusted("0123456789", 3) == "\"01...[7 of 10 characters cut]...9\"");
    }

    TEST_CASE("a block keeps its lines, each behind the gutter") {
        CHECK(render_untrusted_block("one\ntwo\x1b[1A\n", "  | ") ==
              "  | one\n  | two\\x1b[1A\n  | ");
        CHECK(render_untrusted_block("Approve? [Y/n]\rfake", "  | ") ==
              "  | Approve? [Y/n]\\rfake");
    }

    TEST_CASE("no input makes the output hold a terminal control (every byte value)") {
        std::string all;
        for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
        for (int c = 0x80; c < 0xA0; ++c) {
            all.push_back('\xc2');
            all.push_back(static_cast<char>(c));
        }
        CHECK_FALSE(has_terminal_control(render_untrusted(all)));
        untrusted_text_options keep;
        keep.keep_line_breaks = true;
        CHECK_FALSE(has_terminal_control(render_untrusted(all, keep)));
        CHECK(has_terminal_control(all));
    }
}

TEST_SUITE("core.untrusted_text") {
    TEST_CASE("rendered text is cut in the middle without being escaped again") {
        CHECK(cut_in_middle("[\"a\\\\b\", 1234567]", 6) ==
              "[\"a...[11 of 17 characters cut]...67]");
        CHECK(cut_in_middle("short", 6) == "short");
        CHECK(cut_in_middle("anything", 0) == "anything");
    }
}
