// Header rules, Content-Type classes, session ids, JSON bodies and HTTP failure messages.
#include <doctest/doctest.h>

#include "ipybox/core/redactor.hpp"
#include "ipybox/mcp/http/wire.hpp"

namespace core = ipybox::core;
namespace http = ipybox::mcp::http;
namespace jsonrpc = ipybox::mcp::jsonrpc;

TEST_SUITE("mcp.http.wire") {
    TEST_CASE("configured headers must be tokens with single-line values") {
        CHECK_NOTHROW(http::validate_custom_headers(
            {{"Authorization", "Bearer abc.def"}, {"X-Api-Key", "k"}, {"x-trace", ""}}));
        CHECK_THROWS_WITH_AS(http::validate_custom_headers({{"Bad Name", "x"}}),
                             doctest::Contains("not a valid HTTP token"), std::invalid_argument);
        CHECK_THROWS_AS(http::validate_custom_headers({{"", "x"}}), std::invalid_argument);
        CHECK_THROWS_WITH_AS(http::validate_custom_headers({{"X-Evil", "a\r\nHost: other"}}),
                             doctest::Contains("line break"), std::invalid_argument);
        CHECK_THROWS_AS(http::validate_custom_headers({{"X-Nul", std::string("a\0b", 3)}}),
                        std::invalid_argument);
    }

    TEST_CASE("headers the transport manages cannot be configured, in any case") {
        for (const char* name :
             {"Host", "content-length", "Content-Type", "Accept", "MCP-Session-Id",
              "mcp-protocol-version", "Last-Event-ID", "Transfer-Encoding", "Connection"}) {
            CHECK_THROWS_WITH_AS_MESSAGE(http::validate_custom_headers({{name, "x"}}),
                                         doctest::Contains("set by the MCP HTTP transport"),
                                         std::invalid_argument, name);
        }
    }

    TEST_CASE("Content-Type is classified by media type, ignoring case and parameters") {
        CHECK(http::classify_content_type("application/json") == http::body_kind::json);
        CHECK(http::classify_content_type(" Application/JSON ; charset=utf-8") ==
              http::body_kind::json);
        CHECK(http::classify_content_type("text/event-stream") == http::body_kind::event_stream);
        CHECK(http::classify_content_type("text/event-stream;charset=UTF-8") ==
              http::body_kind::event_stream);
        CHECK(http::classify_content_type("text/html") == http::body_kind::other);
        CHECK(http::classify_content_type("") == http::body_kind::other);
    }

    TEST_CASE("session ids are 1-1024 visible ASCII characters") {
        CHECK(http::is_valid_session_id("d9cee1a0-cd1e-4728-83a8-134e113c2746"));
        CHECK(http::is_valid_session_id("!~"));
        CHECK_FALSE(http::is_valid_session_id(""));
        CHECK_FALSE(http::is_valid_session_id("a b"));
        CHECK_FALSE(http::is_valid_session_id("a\r\nX-Injected: 1"));
        CHECK_FALSE(http::is_valid_session_id("caf\xC3\xA9"));
        CHECK_FALSE(http::is_valid_session_id(std::string(1025, 'a')));
        CHECK(http::is_valid_session_id(std::string(1024, 'a')));
    }

    TEST_CASE("a JSON body is one message, a batch several, whitespace none") {
        const auto one = http::decode_json_body(R"({"jsonrpc":"2.0","id":1,"result":{}})");
        REQUIRE(one.size() == 1);
        CHECK(std::holds_alternative<jsonrpc::message>(one[0]));

        const auto batch = http::decode_json_body(
            R"( [{"jsonrpc":"2.0","method":"notifications/progress","params":{}},
                 {"jsonrpc":"2.0","id":"a","result":{"x":1}}] )");
        REQUIRE(batch.size() == 2);
        const auto& response = std::get<jsonrpc::response>(std::get<jsonrpc::message>(batch[1]));
        CHECK(response.id == jsonrpc::request_id(std::string("a")));

        CHECK(http::decode_json_body(" \r\n").empty());
    }

    TEST_CASE("a body that is not JSON, or too deep, is one decode failure") {
        const auto broken = http::decode_json_body("<html>oops</html>");
        REQUIRE(broken.size() == 1);
        CHECK(std::get<jsonrpc::decode_failure>(broken[0]).error.code ==
              jsonrpc::error_code::parse_error);
        const auto deep = http::decode_json_body(std::string(2000, '[') + std::string(2000, ']'));
        REQUIRE(deep.size() == 1);
        CHECK(std::holds_alternative<jsonrpc::decode_failure>(deep[0]));
    }

    TEST_CASE("an HTTP failure is described with what the body says") {
        CHECK(http::describe_http_status(404, "Not Found", "") == "HTTP 404 Not Found");
        CHECK(
            http::describe_http_status(
                400, "Bad Request",
                R"({"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}})") ==
            "HTTP 400 Bad Request: Bad Request: No valid session ID provided");
        CHECK(http::describe_http_status(502, "Bad Gateway", "<html>\r\n<b>down</b></html>") ==
              "HTTP 502 Bad Gateway: <html>  <b>down</b></html>");
        const auto long_body = http::describe_http_status(500, "", std::string(1000, 'x'));
        CHECK(long_body.size() < 400);
        CHECK(long_body.ends_with("..."));
    }

    TEST_CASE("a secret the body's cut would split is redacted whole, not half shown") {
        // A server's 404 page echoes the URL path that carried a filled ${TOKEN}, the token
        // straddling the 300 bytes of the body that are quoted.
        const std::string token = "tok-3f9c2a7b41d8e6905c";
        core::process_redactor().remember("WIRE_TEST_TOKEN", token);
        const auto body = std::string(290, '.') + "/mcp/" + token + "/mcp not found";
        const auto described = http::describe_http_status(404, "Not Found", body);
        CHECK(described.find("tok-") == std::string::npos);
        CHECK(described.find("/mcp/${WIR") != std::string::npos);  // the placeholder, cut
        // Control: without the redaction, the cut would have kept the token's first bytes.
        CHECK(body.substr(0, 300).find("tok-") != std::string::npos);
    }

    TEST_CASE("a failed exchange becomes an error response for its request") {
        const auto response = http::http_failure_response(7, "HTTP 500 Internal Server Error", 500);
        CHECK(response.id == jsonrpc::request_id(std::int64_t{7}));
        CHECK(response.error.code == http::http_failure_code);
        CHECK(response.error.message == "HTTP 500 Internal Server Error");
        CHECK(response.error.data["httpStatus"] == 500);
        CHECK_FALSE(http::http_failure_response(1, "x").error.data.contains("httpStatus"));
    }
}
