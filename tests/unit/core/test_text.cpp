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
}
