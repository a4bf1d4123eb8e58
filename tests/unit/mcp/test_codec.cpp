#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "ipybox/mcp/jsonrpc/codec.hpp"

using namespace ipybox::mcp::jsonrpc;

namespace {

message decoded(std::string_view text) {
    auto result = decode(text);
    REQUIRE_MESSAGE(std::holds_alternative<message>(result), "expected a message: " << text);
    return std::get<message>(result);
}

decode_failure failed(std::string_view text) {
    auto result = decode(text);
    REQUIRE_MESSAGE(std::holds_alternative<decode_failure>(result), "expected a failure: " << text);
    return std::get<decode_failure>(result);
}

}  // namespace

TEST_SUITE("mcp.jsonrpc.codec") {
    TEST_CASE("decodes a request with an integer id, method and params") {
        const auto msg =
            decoded(R"({"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"a":1}})");
        const auto req = std::get<request>(msg);
        CHECK(req.id == request_id(std::int64_t{7}));
        CHECK(req.method == "tools/list");
        CHECK(req.params == json{{"a", 1}});
    }

    TEST_CASE("keeps string ids as strings") {
        const auto req = std::get<request>(decoded(R"({"jsonrpc":"2.0","id":"7","method":"m"})"));
        CHECK(req.id == request_id(std::string("7")));
        CHECK(req.params.is_null());
    }

    TEST_CASE("accepts the largest 64-bit id and refuses one beyond it") {
        const auto max = std::numeric_limits<std::int64_t>::max();
        const auto req = std::get<request>(
            decoded(R"({"jsonrpc":"2.0","id":9223372036854775807,"method":"m"})"));
        CHECK(req.id == request_id(max));
        CHECK(failed(R"({"jsonrpc":"2.0","id":9223372036854775808,"method":"m"})").error.code ==
              error_code::invalid_request);
    }

    TEST_CASE("a message without id is a notification") {
        const auto msg = decoded(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
        CHECK(std::get<notification>(msg).method == "notifications/initialized");
    }

    TEST_CASE("rejects a null request id, which MCP forbids") {
        const auto failure = failed(R"({"jsonrpc":"2.0","id":null,"method":"m"})");
        CHECK(failure.error.code == error_code::invalid_request);
        CHECK_FALSE(failure.id.has_value());
        CHECK(failure.reply_expected);
    }

    TEST_CASE("rejects fractional, boolean and object ids") {
        for (const char* id : {"1.5", "true", "{}", "[1]"}) {
            const auto text = std::string(R"({"jsonrpc":"2.0","method":"m","id":)") + id + "}";
            CHECK_MESSAGE(failed(text).error.code == error_code::invalid_request, text);
        }
    }

    TEST_CASE("reads params null as absent and refuses scalar params") {
        CHECK(std::get<request>(decoded(R"({"jsonrpc":"2.0","id":1,"method":"m","params":null})"))
                  .params.is_null());
        const auto failure = failed(R"({"jsonrpc":"2.0","id":1,"method":"m","params":3})");
        CHECK(failure.error.code == error_code::invalid_request);
        CHECK(failure.id == request_id(std::int64_t{1}));
    }

    TEST_CASE("malformed JSON is a parse error without an id") {
        const auto failure = failed(R"({"jsonrpc":"2.0","id":1,"method":)");
        CHECK(failure.error.code == error_code::parse_error);
        CHECK(failure.error.message.find("Parse error") == 0);
        CHECK_FALSE(failure.id.has_value());
        CHECK(failure.reply_expected);
        CHECK(failed("not json at all").error.code == error_code::parse_error);
        CHECK(failed("").error.code == error_code::parse_error);
    }

    TEST_CASE("invalid UTF-8 is a parse error") {
        CHECK(failed("{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}").error.code ==
              error_code::parse_error);
    }

    TEST_CASE("an unreadable answer keeps its id and asks for no reply, unlike a request") {
        // A Latin-1 byte in a tools/list answer: the decoder names the byte.
        const auto answer =
            failed("{\"jsonrpc\":\"2.0\",\"id\":12,\"result\":{\"d\":\"caf\xe9\"}}");
        CHECK(answer.error.code == error_code::parse_error);
        CHECK(answer.error.message == "Parse error: invalid UTF-8 at byte 43");
        CHECK(answer.id == request_id(std::int64_t{12}));
        CHECK_FALSE(answer.reply_expected);
        // The same byte in a request: JSON-RPC answers a parse error with a null id.
        const auto request = failed("{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"caf\xe9\"}");
        CHECK_FALSE(request.id.has_value());
        CHECK(request.reply_expected);
        // An answer nested too deep, its id after the result (as the TypeScript SDK writes it).
        const auto deep = failed("{\"result\":" + std::string(600, '[') + std::string(600, ']') +
                                 ",\"jsonrpc\":\"2.0\",\"id\":\"abc\"}");
        CHECK(deep.error.message == "Parse error: nesting deeper than 512 levels");
        CHECK(deep.id == request_id(std::string("abc")));
        CHECK_FALSE(deep.reply_expected);
    }

    TEST_CASE("an oversized message is described by its size and the limit") {
        constexpr std::size_t mib = 1024 * 1024;
        CHECK(oversized_reason(20 * mib, 16 * mib) ==
              "a message of 20 MiB exceeds the 16 MiB limit");
        CHECK(oversized_reason(std::nullopt, 16 * mib) == "a message exceeds the 16 MiB limit");
        CHECK(oversized_reason(16 * mib + 1, 16 * mib) ==
              "a message of 16.0 MiB (16777217 bytes) exceeds the 16 MiB limit");
        ipybox::core::json_limits limits;
        limits.max_bytes = 10;
        const auto big =
            std::get<decode_failure>(decode(R"({"jsonrpc":"2.0","id":1,"result":{}})", limits));
        CHECK(big.error.message.find("exceed the limit of 10") != std::string::npos);
        CHECK(big.id == request_id(std::int64_t{1}));
        CHECK_FALSE(big.reply_expected);
    }

    TEST_CASE("a wrong or missing jsonrpc version is an invalid request that keeps the id") {
        auto failure = failed(R"({"jsonrpc":"1.0","id":4,"method":"m"})");
        CHECK(failure.error.code == error_code::invalid_request);
        CHECK(failure.id == request_id(std::int64_t{4}));
        failure = failed(R"({"id":"x","method":"m"})");
        CHECK(failure.error.code == error_code::invalid_request);
        CHECK(failure.id == request_id(std::string("x")));
        CHECK(failed(R"({"jsonrpc":2.0,"id":1,"method":"m"})").error.code ==
              error_code::invalid_request);
    }

    TEST_CASE("rejects batches with one invalid-request error") {
        const auto failure = failed(
            R"([{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}])");
        CHECK(failure.error.code == error_code::invalid_request);
        CHECK(failure.error.message.find("batch") != std::string::npos);
        CHECK_FALSE(failure.id.has_value());
    }

    TEST_CASE("rejects values that are not objects and objects that are no message") {
        CHECK(failed("42").error.code == error_code::invalid_request);
        CHECK(failed(R"("text")").error.code == error_code::invalid_request);
        CHECK(failed(R"({"jsonrpc":"2.0","id":1})").error.code == error_code::invalid_request);
        CHECK(failed(R"({"jsonrpc":"2.0","id":1,"method":5})").error.code ==
              error_code::invalid_request);
    }

    TEST_CASE("decodes result and error responses, including an error with a null id") {
        const auto ok =
            std::get<response>(decoded(R"({"jsonrpc":"2.0","id":3,"result":{"x":[]}})"));
        CHECK(ok.id == request_id(std::int64_t{3}));
        CHECK(ok.result == json{{"x", json::array()}});
        const auto bad = std::get<error_response>(decoded(
            R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error","data":{"at":1}}})"));
        CHECK_FALSE(bad.id.has_value());
        CHECK(bad.error == error_object{-32700, "Parse error", json{{"at", 1}}});
    }

    TEST_CASE("a malformed response is refused without asking for a reply") {
        for (const char* text :
             {R"({"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}})",
              R"({"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}})",
              R"({"jsonrpc":"2.0","id":1,"error":{"code":1}})",
              R"({"jsonrpc":"2.0","id":1,"error":"boom"})", R"({"jsonrpc":"2.0","result":1})",
              R"({"jsonrpc":"2.0","id":1.5,"result":1})",
              R"({"jsonrpc":"1.0","id":1,"result":1})"}) {
            const auto failure = failed(text);
            CHECK_MESSAGE(failure.error.code == error_code::invalid_request, text);
            CHECK_FALSE_MESSAGE(failure.reply_expected, text);
        }
    }

    TEST_CASE("ignores unknown members") {
        const auto msg = decoded(R"({"jsonrpc":"2.0","id":1,"method":"m","extra":true})");
        CHECK(std::get<request>(msg).method == "m");
    }

    TEST_CASE("refuses nesting deeper than the limit before parsing") {
        std::string deep(600, '[');
        deep += std::string(600, ']');
        const auto failure = failed(deep);
        CHECK(failure.error.code == error_code::parse_error);
        CHECK(failure.error.message == "Parse error: nesting deeper than 512 levels");
        CHECK(std::holds_alternative<message>(
            decode(R"({"jsonrpc":"2.0","method":"m","params":{"a":"[[[[{{{{"}})")));
    }

    TEST_CASE("encodes each kind of message and decodes it back unchanged") {
        const std::vector<message> messages = {
            request{std::int64_t{1}, "initialize", json{{"protocolVersion", "2025-11-25"}}},
            request{std::string("abc"), "ping", nullptr},
            notification{"notifications/progress", json{{"progress", 1}}},
            notification{"notifications/initialized", nullptr},
            response{std::int64_t{9}, json{{"tools", json::array()}}},
            response{std::int64_t{10}, nullptr},
            error_response{std::int64_t{2}, {-32601, "Method not found: x", nullptr}},
            error_response{std::nullopt, {-32700, "Parse error", json{{"line", 1}}}},
        };
        for (const auto& msg : messages) {
            const auto text = encode(msg);
            CHECK(text.find('\n') == std::string::npos);
            CHECK(decoded(text) == msg);
            // encode splices the payload into its envelope; the bytes are the plain dump's.
            CHECK(text == to_json(msg).dump(-1, ' ', false, json::error_handler_t::replace));
        }
    }

    TEST_CASE("encoding omits absent params and writes a null id for unidentified errors") {
        CHECK(encode(notification{"n", nullptr}) == R"({"jsonrpc":"2.0","method":"n"})");
        CHECK(to_json(error_response{std::nullopt, {-32700, "Parse error", nullptr}})["id"]
                  .is_null());
    }

    TEST_CASE("encoding replaces invalid UTF-8 and escapes newlines") {
        const auto text = encode(notification{"n", json{{"text", std::string("a\nb\xff")}}});
        CHECK(text.find('\n') == std::string::npos);
        CHECK(text.find("\\n") != std::string::npos);
        CHECK(std::holds_alternative<message>(decode(text)));
    }
}
