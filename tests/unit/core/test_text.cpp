#include <doctest/doctest.h>

#include "ipybox/core/text.hpp"

using namespace ipybox::core;

TEST_SUITE("core.text") {
    TEST_CASE("strips colour and cursor escape sequences") {
        CHECK(strip_ansi("\x1b[0;31mZeroDivisionError\x1b[0m: x") == "ZeroDivisionError: x");
        CHECK(strip_ansi("a\x1b[2Kb") == "ab");
        CHECK(strip_ansi("\x1b]0;title\x07text") == "text");
        CHECK(strip_ansi("plain") == "plain");
    }

    TEST_CASE("replaces invalid UTF-8 with U+FFFD and keeps valid text") {
        CHECK(sanitize_utf8("h\xc3\xa9llo") == "h\xc3\xa9llo");
        CHECK(sanitize_utf8("a\xff"
                            "b") ==
              "a\xef\xbf\xbd"
              "b");
        CHECK(sanitize_utf8("\xed\xa0\x80") ==
              "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");                   // surrogate
        CHECK(sanitize_utf8("\xe2\x82") == "\xef\xbf\xbd\xef\xbf\xbd");  // truncated
    }

    TEST_CASE("finds the longest prefix that does not split a character") {
        const std::string text = "ab\xe2\x82\xac";  // "ab€"
        CHECK(utf8_complete_prefix_length(text) == text.size());
        CHECK(utf8_complete_prefix_length(text.substr(0, 4)) == 2);
        CHECK(utf8_complete_prefix_length(text.substr(0, 3)) == 2);
        CHECK(utf8_complete_prefix_length("") == 0);
    }
}
