// Class 1 of issue 27 over stdio: answers ipybox cannot read and answers that never come. Each
// request must end, with an error that names the server, the request and the reason.
#include <doctest/doctest.h>

#include "hostile_fixture.hpp"
#include "ipybox/mcp/jsonrpc/errors.hpp"

using namespace ipybox::testing;
using ipybox::mcp::jsonrpc::request_timeout;
using ipybox::mcp::jsonrpc::unreadable_answer;
using nlohmann::json;

TEST_SUITE("hostile.stdio") {
    TEST_CASE("the well-behaved twin lists and calls (control for the cases below)") {
        hostile_connection c(hostile_transport::stdio, "well-behaved", near_deadlines());
        const auto tools = c.bounded([&] { return c.pool().list_tools("hostile"); }).get();
        REQUIRE(tools.size() == 1);
        CHECK(tools[0].name == "noop");
        const auto result =
            c.bounded([&] { return c.pool().call_tool("hostile", "noop", json::object()); }).get();
        CHECK(result.content.at(0)["text"] == "ok");
    }

    TEST_CASE("one Latin-1 byte in tools/list fails the listing at once, naming the byte") {
        hostile_connection c(hostile_transport::stdio, "latin1-list", far_deadlines());
        const auto message =
            c.failure_of<unreadable_answer>([&] { return c.pool().list_tools("hostile"); });
        CHECK(contains(message, "'tools/list' (request 2) to MCP server 'hostile' failed"));
        CHECK(contains(message, "its answer could not be read: invalid UTF-8 at byte 76"));
    }

    TEST_CASE("a tool list over 16 MiB fails with its size and the limit") {
        hostile_connection c(hostile_transport::stdio, "huge-list", far_deadlines());
        const auto message =
            c.failure_of<unreadable_answer>([&] { return c.pool().list_tools("hostile"); });
        CHECK(contains(message, "'tools/list' (request 2) to MCP server 'hostile'"));
        CHECK(contains(message, "MiB"));
        CHECK(contains(message, "exceeds the 16 MiB limit"));
    }

    TEST_CASE("a tool list nested past 512 levels fails with the depth limit") {
        hostile_connection c(hostile_transport::stdio, "deep-list", far_deadlines());
        const auto message =
            c.failure_of<unreadable_answer>([&] { return c.pool().list_tools("hostile"); });
        CHECK(contains(message, "'tools/list' (request 2) to MCP server 'hostile'"));
        CHECK(contains(message, "nesting deeper than 512 levels"));
    }

    TEST_CASE(
        "a tool result over 16 MiB fails the call with the limit, and the server stays usable") {
        hostile_connection c(hostile_transport::stdio, "huge-result", far_deadlines());
        const auto message = c.failure_of<unreadable_answer>(
            [&] { return c.pool().call_tool("hostile", "noop", json::object()); });
        CHECK(contains(message, "'tools/call' (request 2) to MCP server 'hostile'"));
        CHECK(contains(message, "exceeds the 16 MiB limit"));
        // The line was skipped to its end: the next answer is read normally.
        CHECK(c.bounded([&] { return c.pool().list_tools("hostile"); }).get().size() == 1);
    }

    TEST_CASE("a server that never answers tools/list fails it at the request timeout") {
        hostile_connection c(hostile_transport::stdio, "silent-list", near_deadlines());
        const auto message =
            c.failure_of<request_timeout>([&] { return c.pool().list_tools("hostile"); });
        CHECK(contains(message,
                       "'tools/list' (request 2) to MCP server 'hostile' got no answer "
                       "within 1000 ms"));
        // Control: the connection was alive all along (the server answers what it answers).
        const auto result =
            c.bounded([&] { return c.pool().call_tool("hostile", "noop", json::object()); }).get();
        CHECK(result.content.at(0)["text"] == "ok");
    }

    TEST_CASE("a tool list trickling at 2 bytes a second fails at the listing's own limit") {
        // max_request is 600 s: only max_list (3 s) can end it in time.
        hostile_connection c(hostile_transport::stdio, "trickle-list", trickle_deadlines());
        const auto message =
            c.failure_of<request_timeout>([&] { return c.pool().list_tools("hostile"); });
        // The bytes kept restarting the 2 s timeout: only the listing's limit ended it.
        CHECK_MESSAGE(contains(message, listing_limit_message(3000)), message);
        CHECK(contains(message,
                       "raise \"timeouts\": {\"max_list\": <seconds>} in the parameters "
                       "of MCP server 'hostile'"));
    }

    TEST_CASE("notifications in pieces, forever, fail the listing at its own limit") {
        hostile_connection c(
            hostile_transport::stdio, "notify-trickle-list",
            {{"connect", 10}, {"request", 10}, {"max_list", 2}, {"max_request", 600}});
        const auto message =
            c.failure_of<request_timeout>([&] { return c.pool().list_tools("hostile"); });
        CHECK_MESSAGE(contains(message, listing_limit_message(2000)), message);
    }

    TEST_CASE("bytes of notifications are no sign of life for the listing") {
        // Bytes of some message are always arriving; once each completes it is a notification,
        // so the 1 s silence ends the listing, long before its 30 s limit.
        hostile_connection c(
            hostile_transport::stdio, "notify-trickle-list",
            {{"connect", 10}, {"request", 1}, {"max_list", 30}, {"max_request", 600}});
        const auto message =
            c.failure_of<request_timeout>([&] { return c.pool().list_tools("hostile"); });
        CHECK_MESSAGE(contains(message,
                               "'tools/list' (request 2) to MCP server 'hostile' got no answer "
                               "within 1000 ms"),
                      message);
    }

    TEST_CASE("a slow listing that finishes within its limit succeeds (control)") {
        // Three pieces 1.2 s apart: longer than the 2 s timeout in all, so its bytes count, and
        // well within the listing's 10 s.
        hostile_connection c(hostile_transport::stdio, "slow-list",
                             {{"connect", 10}, {"request", 2}, {"max_list", 10}});
        const auto tools = c.bounded([&] { return c.pool().list_tools("hostile"); }).get();
        REQUIRE(tools.size() == 1);
        CHECK(tools[0].name == "noop");
    }

    TEST_CASE("notifications without the answer do not keep tools/list waiting") {
        hostile_connection c(hostile_transport::stdio, "notify-list", near_deadlines());
        const auto message =
            c.failure_of<request_timeout>([&] { return c.pool().list_tools("hostile"); });
        CHECK(contains(message,
                       "'tools/list' (request 2) to MCP server 'hostile' got no answer "
                       "within 1000 ms"));
    }
}
