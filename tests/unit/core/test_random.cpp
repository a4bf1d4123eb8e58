#include <doctest/doctest.h>

#include "ipybox/core/random.hpp"

TEST_SUITE("core.random") {
    TEST_CASE("uuids are version 4 in canonical form and differ") {
        const auto a = ipybox::core::new_uuid();
        CHECK(a.size() == 36);
        CHECK(a[14] == '4');
        CHECK(a != ipybox::core::new_uuid());
    }

    TEST_CASE("random_hex gives two hex digits per byte") {
        const auto token = ipybox::core::random_hex(32);
        CHECK(token.size() == 64);
        CHECK(token.find_first_not_of("0123456789abcdef") == std::string::npos);
    }
}
