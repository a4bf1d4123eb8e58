#include <doctest/doctest.h>

#include "ipybox/jupyter/message.hpp"

using namespace ipybox::jupyter;

TEST_SUITE("jupyter.message") {
    TEST_CASE("a request carries a fresh msg_id, the session and protocol 5.3") {
        const auto a = make_request("kernel_info_request", nlohmann::json::object(), "s1");
        const auto b = make_request("kernel_info_request", nlohmann::json::object(), "s1");
        CHECK(a.msg_id() != b.msg_id());
        CHECK(a.header["session"] == "s1");
        CHECK(a.header["version"] == "5.3");
        CHECK(a.parent_msg_id().empty());
    }

    TEST_CASE("parses kernel timestamps with microseconds") {
        const auto t1 = parse_timestamp_micros("2026-11-22T08:00:00.000100Z");
        const auto t2 = parse_timestamp_micros("2026-11-22T08:00:01.5Z");
        REQUIRE(t1);
        REQUIRE(t2);
        CHECK(*t2 - *t1 == 1'499'900);
        CHECK_FALSE(parse_timestamp_micros("yesterday"));
    }

    TEST_CASE("its own timestamps parse back") {
        CHECK(parse_timestamp_micros(utc_timestamp()));
    }
}
