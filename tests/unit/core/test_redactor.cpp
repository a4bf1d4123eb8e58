#include <doctest/doctest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include "ipybox/core/log.hpp"
#include "ipybox/core/random.hpp"
#include "ipybox/core/redactor.hpp"

using namespace ipybox::core;
using nlohmann::json;

TEST_SUITE("core.redactor") {
    TEST_CASE("a remembered value is replaced by its placeholder wherever it appears") {
        redactor r;
        CHECK(r.redact("GET /mcp/tok3n-value/mcp failed") == "GET /mcp/tok3n-value/mcp failed");
        r.remember("TOKEN", "tok3n-value");
        CHECK(r.redact("GET /mcp/tok3n-value/mcp failed: tok3n-value") ==
              "GET /mcp/${TOKEN}/mcp failed: ${TOKEN}");
        CHECK(r.redact("nothing here") == "nothing here");
    }

    TEST_CASE("matching ignores ASCII case, as a URL's host is lower-cased") {
        redactor r;
        r.remember("TENANT", "AcmeCorp7");
        CHECK(r.redact("cannot connect to https://acmecorp7.example.com") ==
              "cannot connect to https://${TENANT}.example.com");
    }

    TEST_CASE("a value is also found in its JSON-escaped form") {
        redactor r;
        r.remember("PASSWORD", "pa\"ss\\word");
        CHECK(r.redact(json{{"p", "pa\"ss\\word"}}.dump()) == "{\"p\":\"${PASSWORD}\"}");
        CHECK(r.redact("raw pa\"ss\\word") == "raw ${PASSWORD}");
    }

    TEST_CASE("a value is also found as repr() and a URL write it back") {
        redactor r;
        // A server that logs its configuration with %r: repr() doubles the backslash and
        // escapes the quote it is written in (found by an outside attack on the stderr lines
        // ipybox keeps for errors).
        r.remember("SEC", "q\"uo'te\\back-7777");
        CHECK(r.redact("args=['q\"uo\\'te\\\\back-7777']") == "args=['${SEC}']");
        CHECK(r.redact("{'k': \"q\\\"uo'te\\\\back-7777\"}") == "{'k': \"${SEC}\"}");
        // Percent-encoded in a request line a server echoes, or form-encoded.
        r.remember("KEY", "k3y/PART 1?x");
        CHECK(r.redact("GET /mcp?key=k3y%2FPART%201%3Fx HTTP/1.1") ==
              "GET /mcp?key=${KEY} HTTP/1.1");
        CHECK(r.redact("key=k3y%2fPART+1%3fx") == "key=${KEY}");
    }

    TEST_CASE("overlapping values are replaced as one run that names both") {
        redactor r;
        r.remember("A", "abcdef");
        r.remember("B", "defghi");
        CHECK(r.redact("x abcdefghi y") == "x ${A}${B} y");
        r.remember("C", "abcd");  // inside A: the text is A's value, and names A alone
        CHECK(r.redact("abcdef") == "${A}");
        CHECK(r.redact("abcd!") == "${C}!");
    }

    TEST_CASE(
        "two values sharing the part before '#': each is named for itself, the part by both") {
        for (const bool one_first : {true, false}) {
            redactor r;
            if (one_first) r.remember("ONE", "abcdefgh#one");
            r.remember("TWO", "abcdefgh#two");
            if (!one_first) r.remember("ONE", "abcdefgh#one");
            // The whole value is the longest match: it names its own variable only.
            CHECK(r.redact("token abcdefgh#two refused") == "token ${TWO} refused");
            CHECK(r.redact("token abcdefgh#one refused") == "token ${ONE} refused");
            CHECK(r.redact("abcdefgh%23two") == "${TWO}");
            // The shared part alone (a URL cut at '#') could be either: it names both.
            const auto both = one_first ? "${ONE|TWO}" : "${TWO|ONE}";
            CHECK(r.redact("GET http://h/abcdefgh") == std::string("GET http://h/") + both);
            // Each value next to the other: both named, in order, nothing left.
            CHECK(r.redact("abcdefgh#oneabcdefgh#two") == "${ONE}${TWO}");
        }
    }

    TEST_CASE("values shorter than four characters are left alone (the stated rule)") {
        redactor r;
        r.remember("FLAG", "1");
        r.remember("ENV", "dev");
        r.remember("EMPTY", "");
        CHECK(r.empty());
        CHECK(r.redact("dev 1") == "dev 1");
        r.remember("PORT", "8080");
        CHECK(r.redact("localhost:8080") == "localhost:${PORT}");
    }

    TEST_CASE("JSON values are redacted in every string, keys included, structure kept") {
        redactor r;
        r.remember("KEY", "s3cr3t-key");
        const json value = {
            {"text", "key=s3cr3t-key"}, {"s3cr3t-key", {1, "s3cr3t-key", true, nullptr}}, {"n", 4}};
        const json expected = {
            {"text", "key=${KEY}"}, {"${KEY}", {1, "${KEY}", true, nullptr}}, {"n", 4}};
        CHECK(r.redact_json(value) == expected);
    }

    TEST_CASE("random values never survive redaction, whatever surrounds them") {
        redactor r;
        std::vector<std::string> values;
        for (int i = 0; i < 20; ++i) {
            values.push_back(random_hex(4 + i % 8));
            r.remember("V" + std::to_string(i), values.back());
        }
        for (int round = 0; round < 200; ++round) {
            std::string text;
            for (int piece = 0; piece < 6; ++piece) {
                text += random_hex(1 + round % 3);
                text += values[(round * 7 + piece) % values.size()];
            }
            const auto redacted = r.redact(text);
            for (const auto& value : values) {
                CHECK_MESSAGE(redacted.find(value) == std::string::npos, text, " -> ", redacted);
            }
        }
    }

    TEST_CASE("each long line of a multi-line value is redacted on its own") {
        // A server that prints its PEM key to stderr: ipybox reads stderr line by line, keeps
        // the last lines, and indents them in an error (found by an outside attack).
        const std::string body1 =
            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj";
        const std::string body2 =
            "MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu";
        const std::string key = "-----BEGIN PRIVATE KEY-----\r\n" + body1 + "\n" + body2 +
                                "\nshort\n-----END PRIVATE KEY-----";
        const std::string tail = "last stderr lines:\n  " + body1 + "\n  " + body2 + "\n  short";
        redactor r;
        r.remember("SIGNING_KEY", key);
        // The control: lines that are not the key's stay.
        const std::string other =
            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKk";
        CHECK(r.redact("  " + other) == "  " + other);
        CHECK(r.redact(tail) == "last stderr lines:\n  ${SIGNING_KEY}\n  ${SIGNING_KEY}\n  short");
        CHECK(r.redact("  -----BEGIN PRIVATE KEY-----") == "  ${SIGNING_KEY}");  // no '\r'
        CHECK(r.redact("cut: " + body1.substr(0, 20)) == "cut: " + body1.substr(0, 20));
        // A line under min_piece_length is hidden only with the whole value around it.
        CHECK(r.redact("key=" + key + ";") == "key=${SIGNING_KEY};");
    }

    TEST_CASE("the part of a value before '#' or '?' is redacted, as a URL parser cuts there") {
        redactor r;
        r.remember("TOK", "SecretVal%2Fue%41+x#frag?q=1&AbC");
        // An error quoting the URL as parsed: the fragment is gone; a host is lower-cased.
        CHECK(r.redact("MCP server 'h' (http://127.0.0.1:9/mcp/SecretVal%2Fue%41+x): refused") ==
              "MCP server 'h' (http://127.0.0.1:9/mcp/${TOK}): refused");
        CHECK(r.redact("cannot tell which MCP transport http://secretval%2fue%41+x/ speaks") ==
              "cannot tell which MCP transport http://${TOK}/ speaks");
        // The control: a part under min_piece_length is not a needle of its own.
        r.remember("SHORT", "ab3d#fragment-part");
        CHECK(r.redact("http://h/ab3d") == "http://h/ab3d");
        CHECK(r.redact("http://h/ab3d#fragment-part") == "http://h/${SHORT}");
    }

    TEST_CASE("log lines are redacted and their control characters shown escaped") {
        const auto marker = "log-marker-" + random_hex(8);
        process_redactor().remember("LOG_SECRET", marker);
        auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(10);
        set_log_sink(sink);
        logger("test")->warn("connecting with {} \x1b[2J\nsecond line, rendered before: \\x07",
                             marker);
        set_log_sink(std::make_shared<spdlog::sinks::stderr_sink_mt>());
        const auto lines = sink->last_formatted();
        REQUIRE(lines.size() == 1);
        CHECK(lines[0].find(marker) == std::string::npos);
        CHECK(lines[0].find("connecting with ${LOG_SECRET} \\x1b[2J\nsecond line, rendered "
                            "before: \\x07") != std::string::npos);
        // The control: a logger of its own on the same kind of sink, without ipybox's screening.
        auto plain_sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(10);
        spdlog::logger plain("plain", plain_sink);
        plain.warn("connecting with {} \x1b[2J", marker);
        REQUIRE(plain_sink->last_formatted().size() == 1);
        CHECK(plain_sink->last_formatted()[0].find(marker + " \x1b[2J") != std::string::npos);
    }
}
