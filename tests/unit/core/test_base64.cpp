#include <doctest/doctest.h>

#include "ipybox/core/base64.hpp"

using namespace ipybox::core;

TEST_SUITE("core.base64") {
    TEST_CASE("decodes with and without padding, skipping newlines") {
        CHECK(base64_decode("aGVsbG8=") == std::optional<std::string>("hello"));
        CHECK(base64_decode("aGVs\nbG8h") == std::optional<std::string>("hello!"));
        CHECK(base64_decode("") == std::optional<std::string>(""));
    }

    TEST_CASE("rejects characters outside the alphabet and data after padding") {
        CHECK_FALSE(base64_decode("aGV*bG8="));
        CHECK_FALSE(base64_decode("aG=Vs"));
    }

    TEST_CASE("round-trips binary data") {
        std::string bytes;
        for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));
        CHECK(base64_decode(base64_encode(bytes)) == std::optional<std::string>(bytes));
    }
}
