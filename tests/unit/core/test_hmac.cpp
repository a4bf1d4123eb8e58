// HMAC-SHA256 (core/hmac.hpp) against RFC 4231's test vectors, and the tag comparison.
#include <doctest/doctest.h>

#include "ipybox/core/hmac.hpp"

using namespace ipybox;

TEST_SUITE("core.hmac") {
    TEST_CASE("RFC 4231 test cases 1 and 2, the message given whole or in parts") {
        CHECK(core::hmac_sha256_hex(std::string(20, '\x0b'), {"Hi There"}) ==
              "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
        CHECK(core::hmac_sha256_hex("Jefe", {"what do ya want ", "for nothing?"}) ==
              "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    }

    TEST_CASE("tags are equal only when every byte and the length are") {
        CHECK(core::equal_tags("abcd", "abcd"));
        CHECK(!core::equal_tags("abce", "abcd"));
        CHECK(!core::equal_tags("abc", "abcd"));
        CHECK(!core::equal_tags("", "abcd"));
    }
}
