// The SSE parser against WHATWG event-stream vectors, fed whole and in every split.
#include <doctest/doctest.h>

#include "ipybox/mcp/http/sse_parser.hpp"

using ipybox::mcp::http::sse_event;
using ipybox::mcp::http::sse_parser;
using namespace std::chrono_literals;

namespace {

std::vector<sse_event> parse(std::string_view stream, sse_parser& parser) {
    return parser.feed(stream);
}

std::vector<sse_event> parse(std::string_view stream) {
    sse_parser parser;
    return parser.feed(stream);
}

std::vector<sse_event> parse_bytewise(std::string_view stream) {
    sse_parser parser;
    std::vector<sse_event> events;
    for (const char c : stream) {
        for (auto& event : parser.feed(std::string_view(&c, 1))) events.push_back(event);
    }
    return events;
}

sse_event make(std::string data, std::string id = {}, std::string type = "message") {
    return sse_event{std::move(type), std::move(data), std::move(id)};
}

}  // namespace

TEST_SUITE("mcp.http.sse_parser") {
    TEST_CASE("a data line and a blank line make one message event") {
        CHECK(parse("data: hello\n\n") == std::vector{make("hello")});
    }

    TEST_CASE("LF, CRLF and CR all end lines") {
        const auto expected = std::vector{make("a\nb")};
        CHECK(parse("data: a\ndata: b\n\n") == expected);
        CHECK(parse("data: a\r\ndata: b\r\n\r\n") == expected);
        CHECK(parse("data: a\rdata: b\r\r") == expected);
    }

    TEST_CASE("a CR at the end of a chunk and the LF at the start of the next are one line end") {
        sse_parser parser;
        CHECK(parser.feed("data: a\r").empty());
        CHECK(parser.feed("\ndata: b\r").empty());
        CHECK(parser.feed("\n\r") == std::vector{make("a\nb")});
        CHECK(parser.feed("\n").empty());  // the LF of that CRLF, not another blank line
    }

    TEST_CASE("every byte-wise split gives the same events as one chunk") {
        const std::string stream =
            "\xEF\xBB\xBF: comment\r\nevent: message\r\nid: 1\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\n"
            "retry: 50\rdata: second\r\rid: 7\ndata\n\nevent: endpoint\ndata: /m?x=1\n\n";
        const auto whole = parse(stream);
        REQUIRE(whole.size() == 4);
        CHECK(whole[0] == make("{\"a\":\n1}", "1"));
        CHECK(whole[1] == make("second", "1"));
        CHECK(whole[2] == make("", "7"));
        CHECK(whole[3] == make("/m?x=1", "7", "endpoint"));
        CHECK(parse_bytewise(stream) == whole);
        for (std::size_t split = 1; split < stream.size(); ++split) {
            sse_parser parser;
            auto events = parser.feed(std::string_view(stream).substr(0, split));
            for (auto& event : parser.feed(std::string_view(stream).substr(split))) {
                events.push_back(event);
            }
            CHECK_MESSAGE(events == whole, "split at " << split);
        }
    }

    TEST_CASE("event sets the type, an empty event field means message") {
        CHECK(parse("event: endpoint\ndata: /x\n\n") == std::vector{make("/x", "", "endpoint")});
        CHECK(parse("event:\ndata: y\n\n") == std::vector{make("y")});
    }

    TEST_CASE("the type does not carry over to the next event") {
        const auto events = parse("event: ping\ndata: 1\n\ndata: 2\n\n");
        REQUIRE(events.size() == 2);
        CHECK(events[1].type == "message");
    }

    TEST_CASE("only one space after the colon is removed, no colon means an empty value") {
        CHECK(parse("data:  two\n\n") == std::vector{make(" two")});
        CHECK(parse("data:tight\n\n") == std::vector{make("tight")});
        CHECK(parse("data\n\n") == std::vector{make("")});
    }

    TEST_CASE("comments and unknown fields are ignored") {
        CHECK(parse(": keep-alive\n\n").empty());
        CHECK(parse("foo: bar\ndata: x\nbar\n\n") == std::vector{make("x")});
    }

    TEST_CASE("a priming event (id and empty data) is dispatched with empty data") {
        sse_parser parser;
        CHECK(parser.feed("id: e-1\ndata: \n\n") == std::vector{make("", "e-1")});
        CHECK(parser.last_event_id() == "e-1");
    }

    TEST_CASE("an id without data commits the last event id but dispatches nothing") {
        sse_parser parser;
        CHECK(parser.feed("id: 42\n\n").empty());
        CHECK(parser.last_event_id() == "42");
        CHECK(parser.feed("data: x\n\n") == std::vector{make("x", "42")});
    }

    TEST_CASE("the last event id is committed only when the event completes") {
        sse_parser parser;
        parser.feed("id: 1\ndata: a\n\nid: 2\ndata: b\n");
        CHECK(parser.last_event_id() == "1");
        parser.finish();
        CHECK(parser.last_event_id() == "1");
    }

    TEST_CASE("an id containing NUL is ignored, an empty id resets it") {
        sse_parser parser;
        parser.feed("id: 5\n\n");
        parser.feed(std::string_view("id: a\0b\n\n", 9));
        CHECK(parser.last_event_id() == "5");
        parser.feed("id\n\n");
        CHECK(parser.last_event_id().empty());
    }

    TEST_CASE("retry takes only ASCII digits") {
        sse_parser parser;
        CHECK_FALSE(parser.retry().has_value());
        parser.feed("retry: 2000\n");
        CHECK(parser.retry() == 2000ms);
        parser.feed("retry: 3s\nretry: -1\nretry:\n");
        CHECK(parser.retry() == 2000ms);
        parser.feed("retry: 99999999999999999999999\n");
        CHECK(parser.retry() == std::chrono::milliseconds(std::chrono::hours(24)));
    }

    TEST_CASE("one leading BOM is skipped, even split across chunks, a later one is data") {
        sse_parser parser;
        CHECK(parser.feed("\xEF").empty());
        CHECK(parser.feed("\xBB").empty());
        CHECK(parser.feed("\xBF"
                          "data: a\n\n") == std::vector{make("a")});
        CHECK(parser.feed("data: \xEF\xBB\xBF"
                          "b\n\n") == std::vector{make("\xEF\xBB\xBF"
                                                       "b")});
    }

    TEST_CASE("bytes that only start like a BOM are kept") {
        CHECK(parse("\xEF\xBB"
                    "data: a\n\n")
                  .empty());  // "\xEF\xBB" + "data" is an unknown field
        CHECK(parse("\xEF"
                    "\n"
                    "data: a\n\n") == std::vector{make("a")});
    }

    TEST_CASE("an event larger than the limit is dropped and the next one still parses") {
        sse_parser parser(16);
        const auto events =
            parser.feed("data: 0123456789\ndata: 0123456789\nid: big\n\ndata: small\n\n");
        CHECK(events == std::vector{make("small")});
        CHECK(parser.discarded_events() == 1);
        CHECK(parser.last_event_id().empty());
    }

    TEST_CASE("a single line over the limit, split across chunks, is dropped") {
        sse_parser parser(16);
        CHECK(parser.feed("data: aaaaaaaaaaaaaaaaaaaa").empty());
        CHECK(parser.feed("aaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r").empty());
        CHECK(parser.feed("\n\r\ndata: ok\n\n") == std::vector{make("ok")});
        CHECK(parser.discarded_events() == 1);
    }

    TEST_CASE("finish discards an event without its blank line") {
        sse_parser parser;
        CHECK(parser.feed("data: partial\n").empty());
        parser.finish();
        CHECK(parser.feed("\n").empty());
    }

    TEST_CASE("a server-everything response parses to its JSON-RPC message") {
        sse_parser parser;
        const auto events = parse(
            "id: 5d9a\ndata: \n\nevent: message\nid: 0c00\ndata: "
            "{\"result\":{},\"jsonrpc\":\"2.0\","
            "\"id\":1}\n\n",
            parser);
        REQUIRE(events.size() == 2);
        CHECK(events[0].data.empty());
        CHECK(events[1] == make(R"({"result":{},"jsonrpc":"2.0","id":1})", "0c00"));
        CHECK(parser.last_event_id() == "0c00");
    }
}
