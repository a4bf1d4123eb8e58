#include <doctest/doctest.h>

#include <string>

#include "ipybox/mcp/jsonrpc/envelope_scan.hpp"

using namespace ipybox::mcp::jsonrpc;

TEST_SUITE("mcp.jsonrpc.envelope_scan") {
    TEST_CASE("reads the id and the members of an answer whatever follows them") {
        const auto hints =
            scan_envelope("{\"jsonrpc\":\"2.0\",\"id\":42,\"result\":{\"x\":\"\xff\xfe\"}}");
        CHECK(hints.id == request_id(std::int64_t{42}));
        CHECK(hints.has_result);
        CHECK_FALSE(hints.has_method);
        CHECK(hints.looks_like_response());
    }

    TEST_CASE("finds an id written after a deep result, at the top level only") {
        const std::string text = "{\"result\":{\"id\":1,\"deep\":" + std::string(5000, '[') +
                                 "\"]}\"" + std::string(5000, ']') + "},\"id\":\"req-7\"}";
        const auto hints = scan_envelope(text);
        CHECK(hints.id == request_id(std::string("req-7")));
        CHECK(hints.looks_like_response());
    }

    TEST_CASE("a request or notification is not an answer") {
        const auto hints = scan_envelope(R"({"jsonrpc":"2.0","id":3,"method":"x","params":{}})");
        CHECK(hints.has_method);
        CHECK_FALSE(hints.looks_like_response());
        CHECK_FALSE(scan_envelope("{truncated").looks_like_response());
        CHECK_FALSE(scan_envelope("Server starting... {\"result\":1}").looks_like_response());
    }

    TEST_CASE("gives up on ids it cannot read exactly") {
        CHECK_FALSE(scan_envelope(R"({"id":1.5,"result":1})").id.has_value());
        CHECK_FALSE(scan_envelope(R"({"id":"a\"b","result":1})").id.has_value());
        CHECK_FALSE(scan_envelope("{\"id\":\"" + std::string(300, 'x') + "\",\"error\":{}}")
                        .id.has_value());
        CHECK_FALSE(scan_envelope(R"({"id":99999999999999999999,"result":1})").id.has_value());
        CHECK_FALSE(scan_envelope(R"({"id":null,"error":{}})").id.has_value());
        CHECK(scan_envelope(R"({"id":-5 ,"error":{}})").id == request_id(std::int64_t{-5}));
    }

    TEST_CASE("gives the same answer fed in pieces as at once") {
        const std::string text = R"({"error":{"code":1,"message":"m"},"jsonrpc":"2.0","id":12345})";
        envelope_scanner scanner;
        for (const char c : text) scanner.feed(std::string_view(&c, 1));
        CHECK(scanner.hints().id == request_id(std::int64_t{12345}));
        CHECK(scanner.hints().has_error);
    }
}
