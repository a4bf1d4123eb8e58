#include <doctest/doctest.h>

#include <functional>
#include <random>
#include <string>

#include "ipybox/core/json_decode.hpp"
#include "ipybox/core/utf8.hpp"

using namespace ipybox::core;
using reason = json_decode_error::reason;

namespace {

reason failure_of(std::string_view text, const json_limits& limits = {}) {
    try {
        decode_json(text, limits);
    } catch (const json_decode_error& e) {
        return e.why();
    }
    FAIL("decoded: " << std::string(text.substr(0, 80)));
    return reason::syntax;
}

std::string nested(std::size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
}

}  // namespace

TEST_SUITE("core.json_decode") {
    TEST_CASE("decodes what nlohmann decodes within the limits") {
        CHECK(decode_json(R"({"a": [1, 2.5, "x", true, null, {"b": {}}]})") ==
              nlohmann::json::parse(R"({"a": [1, 2.5, "x", true, null, {"b": {}}]})"));
        CHECK(decode_json("\"h\xc3\xa9\"") == "h\xc3\xa9");
    }

    TEST_CASE("refuses nesting past the limit before parsing, at any depth the stack cannot take") {
        CHECK(decode_json(nested(512)).is_array());
        CHECK(failure_of(nested(513)) == reason::too_deep);
        // A million levels would overflow nlohmann's recursive parser (a segfault): refused by
        // the scan, which holds no stack of its own.
        CHECK(failure_of(nested(1000000)) == reason::too_deep);
        CHECK(failure_of(std::string(1000000, '{')) == reason::too_deep);
        // Brackets inside strings are text.
        CHECK(decode_json("\"" + std::string(2000, '[') + "\"").is_string());
    }

    TEST_CASE("names the byte of the first invalid UTF-8 sequence") {
        const std::string text = "{\"description\": \"caf\xe9\"}";  // Latin-1 é
        try {
            decode_json(text);
            FAIL("decoded");
        } catch (const json_decode_error& e) {
            CHECK(e.why() == reason::invalid_utf8);
            CHECK(std::string(e.what()) == "invalid UTF-8 at byte 20");
        }
        CHECK(first_invalid_utf8("ok\xed\xa0\x80") == 2);  // a surrogate
        CHECK(first_invalid_utf8("\xc0\xaf") == 0);        // an overlong '/'
        CHECK(first_invalid_utf8("\xe2\x82\xac") == 3);    // valid
    }

    TEST_CASE("refuses a text over the size limit and counts values against theirs") {
        json_limits small;
        small.max_bytes = 10;
        CHECK(failure_of("[1,2,3,4,5,6]", small) == reason::too_large);
        json_limits few;
        few.max_values = 4;
        CHECK(decode_json("[1, 2, 3]", few).size() == 3);  // the array and its three numbers
        CHECK(failure_of("[1, 2, 3, 4]", few) == reason::too_many_values);
        // Keys count: {"a": 1, "b": 2} is the object, two keys and two values.
        CHECK(failure_of(R"({"a": 1, "b": 2})", few) == reason::too_many_values);
        // Digits of one number and letters of one literal are one value.
        CHECK(decode_json("[12345678, true]", few).size() == 2);
    }

    TEST_CASE("says where a syntax error is") {
        try {
            decode_json("{\"a\": }");
            FAIL("decoded");
        } catch (const json_decode_error& e) {
            CHECK(e.why() == reason::syntax);
            CHECK(std::string(e.what()).rfind("not JSON: parse error at line 1, column 7", 0) == 0);
        }
    }

    TEST_CASE("the value count never undercounts what nlohmann builds (generated documents)") {
        std::mt19937 random(20261125);
        for (int round = 0; round < 300; ++round) {
            // A random document built bottom-up; its value count is known exactly.
            std::size_t values = 0;
            std::function<nlohmann::json(int)> make = [&](int depth) -> nlohmann::json {
                ++values;
                const auto kind = random() % (depth > 4 ? 4 : 6);
                if (kind == 0) return static_cast<int>(random() % 1000) - 500;
                if (kind == 1) return std::string(random() % 5, 'x') + "[{,:\\\"";
                if (kind == 2) return random() % 2 == 0;
                if (kind == 3) return nullptr;
                if (kind == 4) {
                    auto array = nlohmann::json::array();
                    for (auto n = random() % 4; n > 0; --n) array.push_back(make(depth + 1));
                    return array;
                }
                auto object = nlohmann::json::object();
                for (auto n = random() % 4; n > 0; --n) {
                    const auto key = "k" + std::to_string(random() % 100);
                    if (object.contains(key)) continue;
                    ++values;  // the key
                    object[key] = make(depth + 1);
                }
                return object;
            };
            const auto document = make(0);
            for (const int indent : {-1, 2}) {
                const auto text = document.dump(indent);
                CHECK(check_json_limits(text).values == values);
                CHECK(decode_json(text) == document);
            }
        }
    }
}
