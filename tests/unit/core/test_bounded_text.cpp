#include <doctest/doctest.h>

#include "ipybox/core/bounded_text.hpp"

using ipybox::core::bounded_text;

TEST_SUITE("core.bounded_text") {
    TEST_CASE("keeps everything under the cap") {
        bounded_text text(100);
        text.append("hello ");
        text.append("world");
        CHECK(text.str() == "hello world");
        CHECK(text.dropped_bytes() == 0);
    }

    TEST_CASE("keeps head and tail and says how much was omitted") {
        bounded_text text(10);
        for (int i = 0; i < 100; ++i) text.append("0123456789");
        const auto out = text.str();
        CHECK(out.rfind("01234", 0) == 0);
        CHECK(out.find("[... 990 bytes of output omitted ...]") != std::string::npos);
        CHECK(out.substr(out.size() - 5) == "56789");
        CHECK(text.total_bytes() == 1000);
    }

    TEST_CASE("memory stays bounded however much is appended") {
        bounded_text text(1000);
        const std::string block(4096, 'x');
        for (int i = 0; i < 10000; ++i) text.append(block);  // 40 MB
        CHECK(text.str().size() < 1100);
    }

    TEST_CASE("never cuts a multi-byte character in half") {
        bounded_text text(7);
        for (int i = 0; i < 20; ++i) text.append("\xe2\x82\xac");  // "€" x 20
        const auto out = text.str();
        CHECK(out.find("\xe2\x82\n") == std::string::npos);
        CHECK(out.rfind("\xe2\x82\xac", 0) == 0);
    }

    TEST_CASE("zero means unbounded") {
        bounded_text text(0);
        text.append(std::string(100000, 'y'));
        CHECK(text.str().size() == 100000);
    }
}
