// How guessable a secret's value is (issue 35, item 4: a six-digit PIN filled into a server could
// be found from a sandboxed kernel through an echoing tool, one candidate per call).
#include "ipybox/workspace/secret_strength.hpp"

#include <doctest/doctest.h>

using ipybox::workspace::guessable_secret_error;
using ipybox::workspace::guessing_bits;
using ipybox::workspace::min_secret_bits;

TEST_SUITE("workspace.secret_strength") {
    TEST_CASE("PINs, short words and repeated characters are guessable") {
        for (const auto* value : {"", "123456", "0000000000000000000000", "hunter2", "password",
                                  "Summer24", "abcdefgh"}) {
            CAPTURE(value);
            CHECK(guessing_bits(value) < min_secret_bits);
        }
    }

    TEST_CASE("letter case adds nothing: redaction matches whatever the case") {
        // Found by an outside attacker: the lower-case guess came back as the placeholder.
        CHECK(guessing_bits("qWeRtYuIoP") == doctest::Approx(guessing_bits("qwertyuiop")));
        CHECK(guessing_bits("qWeRtYuIoP") < min_secret_bits);
    }

    TEST_CASE("tokens and long mixed values are not") {
        for (const auto* value :
             {"ghp_2x8Kq0vLmN3pR7tY9wZ1aB4cD6eF8gH0", "sk-0123456789abcdefABCDEF",
              "correct-horse-battery", "4f8a2c9e1b7d3f60"}) {
            CAPTURE(value);
            CHECK(guessing_bits(value) >= min_secret_bits);
        }
    }

    TEST_CASE("a piece redacted on its own counts: a weak line or the part before '#'") {
        using ipybox::workspace::guessable;
        CHECK_FALSE(guessable("v7Q2xK9mPa4Lz8Rw"));
        CHECK(guessable("40713395\n62800417"));  // each line, 2^26.6, found apart
        CHECK(guessable("12345678#v7Q2xK9mPa4Lz8Rw"));
        CHECK_FALSE(guessable("v7Q2xK9mPa4Lz8Rw\nQ9z2Lk8vTr3Mw7Xp"));
        CHECK(guessable("123456789012345"));  // 15 digits: 2^49.8, under the bound
        CHECK_FALSE(guessable("abc"));        // under 4 characters: not redacted, no secret
    }

    TEST_CASE("the error names each variable and the flag that allows it, never a value") {
        const guessable_secret_error error({"PIN", "CODE"});
        const std::string text = error.what();
        CHECK(text.find("${PIN}, ${CODE} are too easy to guess") != std::string::npos);
        CHECK(text.find("--allow-guessable-secret PIN --allow-guessable-secret CODE") !=
              std::string::npos);
    }
}
