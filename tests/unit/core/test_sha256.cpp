// SHA-256 gives the digests FIPS 180-4's examples publish, so names built from it are the same in
// every build.
#include <doctest/doctest.h>

#include "ipybox/core/sha256.hpp"

using ipybox::core::sha256_hex;

TEST_SUITE("core.sha256") {
    TEST_CASE("the digests of FIPS 180-4's examples, in lowercase hex") {
        CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        CHECK(sha256_hex("abc") ==
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    }

    TEST_CASE("bytes past a NUL count") {
        CHECK(sha256_hex(std::string_view("a\0b", 3)) != sha256_hex("a"));
    }
}
