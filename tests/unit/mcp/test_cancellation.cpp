#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ipybox/mcp/jsonrpc/cancellation.hpp"

using namespace ipybox::mcp::jsonrpc;

TEST_SUITE("mcp.jsonrpc.cancellation") {
    TEST_CASE("a default token is never cancelled") {
        const cancellation_token token;
        CHECK_FALSE(token.cancelled());
        bool ran = false;
        auto registration = token.on_cancel([&](const std::string&) { ran = true; });
        CHECK_FALSE(ran);
    }

    TEST_CASE("cancel runs each callback once with the reason, and only the first cancel counts") {
        cancellation_source source;
        std::vector<std::string> seen;
        auto first = source.token().on_cancel([&](const std::string& why) { seen.push_back(why); });
        auto second =
            source.token().on_cancel([&](const std::string& why) { seen.push_back(why); });
        CHECK(source.cancel("timeout"));
        CHECK_FALSE(source.cancel("again"));
        CHECK(seen == std::vector<std::string>{"timeout", "timeout"});
        CHECK(source.token().reason() == "timeout");
    }

    TEST_CASE("registering on a cancelled token runs the callback at once") {
        cancellation_source source;
        source.cancel("early");
        std::string seen;
        auto registration = source.token().on_cancel([&](const std::string& why) { seen = why; });
        CHECK(seen == "early");
    }

    TEST_CASE("a destroyed registration is not called") {
        cancellation_source source;
        bool ran = false;
        {
            auto registration = source.token().on_cancel([&](const std::string&) { ran = true; });
        }
        source.cancel("late");
        CHECK_FALSE(ran);
    }

    TEST_CASE("a throwing callback does not stop the others") {
        cancellation_source source;
        bool ran = false;
        auto bad =
            source.token().on_cancel([](const std::string&) { throw std::runtime_error("x"); });
        auto good = source.token().on_cancel([&](const std::string&) { ran = true; });
        CHECK_NOTHROW(source.cancel("go"));
        CHECK(ran);
    }
}
