// Class 1 of issue 27 over Streamable HTTP and the legacy HTTP+SSE transport, on 127.0.0.1.
#include <doctest/doctest.h>

#include "hostile_fixture.hpp"
#include "ipybox/mcp/jsonrpc/errors.hpp"

using namespace ipybox::testing;
using ipybox::mcp::jsonrpc::request_timeout;
using ipybox::mcp::jsonrpc::unreadable_answer;
using nlohmann::json;

namespace {

std::string list_failure_unreadable(hostile_transport transport, const std::string& mode) {
    hostile_connection c(transport, mode, far_deadlines());
    return c.failure_of<unreadable_answer>([&] { return c.pool().list_tools("hostile"); });
}

std::string list_failure_timeout(hostile_transport transport, const std::string& mode,
                                 const json& timeouts = near_deadlines()) {
    hostile_connection c(transport, mode, timeouts);
    return c.failure_of<request_timeout>([&] { return c.pool().list_tools("hostile"); });
}

std::string call_failure_unreadable(hostile_transport transport) {
    hostile_connection c(transport, "huge-result", far_deadlines());
    return c.failure_of<unreadable_answer>(
        [&] { return c.pool().call_tool("hostile", "noop", json::object()); });
}

}  // namespace

TEST_SUITE("hostile.streamable_http") {
    TEST_CASE("the well-behaved twin lists and calls (control for the cases below)") {
        hostile_connection c(hostile_transport::streamable_http, "well-behaved", near_deadlines());
        CHECK(c.bounded([&] { return c.pool().list_tools("hostile"); }).get().size() == 1);
        const auto result =
            c.bounded([&] { return c.pool().call_tool("hostile", "noop", json::object()); }).get();
        CHECK(result.content.at(0)["text"] == "ok");
    }

    TEST_CASE("one Latin-1 byte in a JSON body fails tools/list, naming the byte") {
        const auto message =
            list_failure_unreadable(hostile_transport::streamable_http, "latin1-list");
        CHECK(contains(message,
                       "'tools/list' (request 2) to MCP server 'hostile' failed: its "
                       "answer could not be read: invalid UTF-8 at byte 76"));
    }

    TEST_CASE("a JSON body over 16 MiB is refused unread, with its size and the limit") {
        const auto message =
            list_failure_unreadable(hostile_transport::streamable_http, "huge-list");
        CHECK(contains(message, "'tools/list' (request 2) to MCP server 'hostile'"));
        CHECK(contains(message, "exceeds the 16 MiB limit"));
    }

    TEST_CASE("a server that accepts the POST and never answers fails at the request timeout") {
        const auto message =
            list_failure_timeout(hostile_transport::streamable_http, "silent-list");
        CHECK(contains(message, "got no answer within 1000 ms"));
    }

    TEST_CASE("a JSON body trickling at 2 bytes a second fails at the listing's own limit") {
        const auto message = list_failure_timeout(hostile_transport::streamable_http,
                                                  "trickle-list", trickle_deadlines());
        CHECK_MESSAGE(contains(message, listing_limit_message(3000)), message);
    }

    TEST_CASE("an SSE stream of notifications without the answer fails at the request timeout") {
        const auto message =
            list_failure_timeout(hostile_transport::streamable_http, "notify-list");
        CHECK(contains(message, "'tools/list' (request 2) to MCP server 'hostile' got no answer"));
    }

    TEST_CASE("a tool result over 16 MiB in an SSE event fails the call with the limit") {
        const auto message = call_failure_unreadable(hostile_transport::streamable_http);
        CHECK(contains(message, "'tools/call' (request 2) to MCP server 'hostile'"));
        CHECK(contains(message, "exceeds the 16 MiB limit"));
    }
}

TEST_SUITE("hostile.sse") {
    TEST_CASE("the well-behaved twin lists and calls (control for the cases below)") {
        hostile_connection c(hostile_transport::sse, "well-behaved", near_deadlines());
        CHECK(c.bounded([&] { return c.pool().list_tools("hostile"); }).get().size() == 1);
    }

    TEST_CASE("one Latin-1 byte in an SSE message fails tools/list, naming the byte") {
        const auto message = list_failure_unreadable(hostile_transport::sse, "latin1-list");
        CHECK(contains(message,
                       "'tools/list' (request 2) to MCP server 'hostile' failed: its "
                       "answer could not be read: invalid UTF-8 at byte 76"));
    }

    TEST_CASE("an SSE message nested past 512 levels fails tools/list with the depth limit") {
        const auto message = list_failure_unreadable(hostile_transport::sse, "deep-list");
        CHECK(contains(message, "nesting deeper than 512 levels"));
    }

    TEST_CASE("notifications on the stream without the answer fail at the request timeout") {
        const auto message = list_failure_timeout(hostile_transport::sse, "notify-list");
        CHECK(contains(message, "got no answer within 1000 ms"));
    }

    TEST_CASE("a tool result over 16 MiB on the stream fails the call with the limit") {
        const auto message = call_failure_unreadable(hostile_transport::sse);
        CHECK(contains(message, "'tools/call' (request 2) to MCP server 'hostile'"));
        CHECK(contains(message, "exceeds the 16 MiB limit"));
    }
}
