#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ipybox/mcp/transport/line_framer.hpp"

using ipybox::mcp::transport::line_framer;
using ipybox::mcp::transport::line_sink;

namespace {

struct collected {
    std::vector<std::string> lines;
    std::vector<std::size_t> oversized;
    std::string skipped;
    std::vector<std::size_t> ended;
    line_sink sink() {
        return {[this](std::string_view line) { lines.emplace_back(line); },
                [this](std::size_t limit) { oversized.push_back(limit); },
                [this](std::string_view bytes) { skipped += bytes; },
                [this](std::size_t length) { ended.push_back(length); }};
    }
};

}  // namespace

TEST_SUITE("mcp.transport.line_framer") {
    TEST_CASE("joins a line delivered in pieces and splits several lines in one chunk") {
        line_framer framer;
        collected out;
        framer.feed(R"({"a":)", out.sink());
        CHECK(out.lines.empty());
        framer.feed("1}\n{\"b\":2}\n{\"c\"", out.sink());
        CHECK(out.lines == std::vector<std::string>{R"({"a":1})", R"({"b":2})"});
        CHECK(framer.buffered_bytes() == 4);
        framer.feed(":3}\n", out.sink());
        CHECK(out.lines.size() == 3);
        CHECK(out.lines[2] == R"({"c":3})");
    }

    TEST_CASE("tolerates CRLF line endings") {
        line_framer framer;
        collected out;
        framer.feed("one\r\ntwo\r", out.sink());
        framer.feed("\n", out.sink());
        CHECK(out.lines == std::vector<std::string>{"one", "two"});
    }

    TEST_CASE("ignores empty and blank lines") {
        line_framer framer;
        collected out;
        framer.feed("\n\r\n  \t\nx\n\n", out.sink());
        CHECK(out.lines == std::vector<std::string>{"x"});
    }

    TEST_CASE("rejects a line longer than the limit without buffering it") {
        line_framer framer(16);
        collected out;
        for (int i = 0; i < 1000; ++i) {
            framer.feed(std::string(100, 'x'), out.sink());
            CHECK(framer.buffered_bytes() <= 17);
        }
        CHECK(out.oversized == std::vector<std::size_t>{16});  // reported once, when crossed
        framer.feed("tail of the long line\nnext\n", out.sink());
        CHECK(out.lines == std::vector<std::string>{"next"});
        CHECK(out.oversized.size() == 1);
    }

    TEST_CASE("accepts a line of exactly the limit, even with CRLF, and rejects one byte more") {
        line_framer framer(4);
        collected out;
        framer.feed("abcd\r\nabcd\nabcde\nok\n", out.sink());
        CHECK(out.lines == std::vector<std::string>{"abcd", "abcd", "ok"});
        CHECK(out.oversized.size() == 1);
    }

    TEST_CASE("delivers a final line without newline at end of input") {
        line_framer framer;
        collected out;
        framer.feed("first\nlast", out.sink());
        framer.finish(out.sink());
        CHECK(out.lines == std::vector<std::string>{"first", "last"});
        CHECK(framer.buffered_bytes() == 0);
    }

    TEST_CASE("hands every byte of an oversized line on, and its length when it ends") {
        line_framer framer(8);
        collected out;
        framer.feed("{\"id\":7,", out.sink());
        CHECK(framer.inside_line());
        framer.feed("\"result\":1}\nok\n", out.sink());
        CHECK(out.skipped == "{\"id\":7,\"result\":1}");
        CHECK(out.ended == std::vector<std::size_t>{19});
        CHECK(out.lines == std::vector<std::string>{"ok"});
        CHECK_FALSE(framer.inside_line());
        framer.feed("0123456789", out.sink());  // cut off by the end of input
        framer.finish(out.sink());
        CHECK(out.ended == std::vector<std::size_t>{19, 10});
    }

    TEST_CASE("the default limit is 16 MiB") {
        CHECK(line_framer().max_line_bytes() == 16U * 1024 * 1024);
    }
}
