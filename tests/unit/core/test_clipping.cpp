// Output clipping in one place: the head and the tail of a long text around a marker that counts
// what was left out, whole characters only, on generated texts and caps.
#include <doctest/doctest.h>

#include <random>

#include "ipybox/core/clipping.hpp"
#include "ipybox/core/utf8.hpp"

using namespace ipybox::core;

namespace {

std::mt19937& generator() {
    static std::mt19937 engine(22);  // fixed: a failure reproduces
    return engine;
}

std::size_t below(std::size_t bound) {
    return std::uniform_int_distribution<std::size_t>(0, bound - 1)(generator());
}

// Text of 1- to 4-byte characters, with line breaks.
std::string random_text(std::size_t max_characters) {
    constexpr const char* alphabet[] = {"a", "\n", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"};
    std::string text;
    for (std::size_t i = below(max_characters + 1); i > 0; --i) text += alphabet[below(5)];
    return text;
}

std::string counted(std::size_t omitted) {
    return "<" + std::to_string(omitted) + ">";
}

}  // namespace

TEST_SUITE("core.clipping") {
    TEST_CASE("a byte cap is shared half and half, the odd byte to the tail") {
        CHECK(split_byte_cap(10).head == 5);
        CHECK(split_byte_cap(10).tail == 5);
        CHECK(split_byte_cap(7).head == 3);
        CHECK(split_byte_cap(7).tail == 4);
        CHECK(split_byte_cap(0).head + split_byte_cap(0).tail == 0);
    }

    TEST_CASE("the omitted-bytes marker is one line of its own") {
        CHECK(omitted_bytes_marker(990) == "\n[... 990 bytes of output omitted ...]\n");
    }

    TEST_CASE("text that fits comes back unchanged and the marker is never built") {
        bool built = false;
        const auto marker = [&](std::size_t) {
            built = true;
            return std::string("<cut>");
        };
        CHECK(clip_characters("h\xc3\xa9llo", 2, 3, marker) == "h\xc3\xa9llo");  // 5 characters
        CHECK(clip_characters("", 0, 0, marker).empty());
        CHECK_FALSE(built);
    }

    TEST_CASE("keeps the first and last characters around the marker, counting characters") {
        // "€" is three bytes: a cut counted in bytes would split it.
        const std::string text = "\xe2\x82\xac" + std::string("0123456789") + "\xe2\x82\xac";
        CHECK(clip_characters(text, 2, 3, counted) ==
              "\xe2\x82\xac"
              "0<7>89\xe2\x82\xac");
        CHECK(clip_characters(text, 0, 1, counted) == "<11>\xe2\x82\xac");
        CHECK(clip_characters(text, 1, 0, counted) == "\xe2\x82\xac<11>");
    }

    TEST_CASE("on generated texts and caps: head and tail whole, the count exact") {
        for (int round = 0; round < 5000; ++round) {
            const auto text = random_text(40);
            const auto head = below(20);
            const auto tail = below(20);
            const auto length = count_code_points(text);
            INFO("text: " << text << ", head " << head << ", tail " << tail);
            std::size_t omitted = 0;
            const auto clipped = clip_characters(text, head, tail, [&](std::size_t n) {
                omitted = n;
                return std::string("\x01");  // a byte the text never holds
            });
            if (length <= head + tail) {
                REQUIRE(clipped == text);
                continue;
            }
            REQUIRE(omitted == length - head - tail);
            const auto at = clipped.find('\x01');
            REQUIRE(at != std::string::npos);
            const std::string_view before(clipped.data(), at);
            const std::string_view after(clipped.data() + at + 1, clipped.size() - at - 1);
            REQUIRE(text.starts_with(before));
            REQUIRE(text.ends_with(after));
            REQUIRE(count_code_points(before) == head);
            REQUIRE(count_code_points(after) == tail);
            REQUIRE(first_invalid_utf8(before) == before.size());
            REQUIRE(first_invalid_utf8(after) == after.size());
        }
    }
}
