// Server parameters -> transport: explicit type first, else /mcp or /sse path segments (never a
// substring of the host), timeouts and headers honoured, unknown keys reported.
#include <doctest/doctest.h>

#include <boost/asio/io_context.hpp>

#include "ipybox/mcp/http/sse_transport.hpp"
#include "ipybox/mcp/http/streamable_http_transport.hpp"
#include "ipybox/mcp/http/transport_factory.hpp"

namespace http = ipybox::mcp::http;
using json = nlohmann::json;
using namespace std::chrono_literals;

namespace {

http::http_transport_kind kind_of(const json& params) {
    return http::parse_http_server_params(params).kind;
}

}  // namespace

TEST_SUITE("mcp.http.factory") {
    TEST_CASE("an explicit type decides, in every accepted spelling") {
        for (const char* type : {"streamable_http", "streamable-http", "streamableHttp", "http"}) {
            CHECK_MESSAGE(kind_of({{"url", "http://127.0.0.1:1/sse"}, {"type", type}}) ==
                              http::http_transport_kind::streamable_http,
                          type);
        }
        CHECK(kind_of({{"url", "http://127.0.0.1:1/mcp"}, {"type", "sse"}}) ==
              http::http_transport_kind::sse);
    }

    TEST_CASE("an unknown type is an error that lists the valid ones") {
        CHECK_THROWS_WITH_AS(kind_of({{"url", "http://h/mcp"}, {"type", "websocket"}}),
                             doctest::Contains("use \"streamable_http\" or \"sse\""),
                             std::invalid_argument);
        CHECK_THROWS_AS(kind_of({{"url", "http://h/mcp"}, {"type", 3}}), std::invalid_argument);
    }

    TEST_CASE("without a type, an /mcp or /sse path segment decides") {
        CHECK(kind_of({{"url", "http://127.0.0.1:3001/mcp"}}) ==
              http::http_transport_kind::streamable_http);
        CHECK(kind_of({{"url", "https://api.example.com/v1/mcp/"}}) ==
              http::http_transport_kind::streamable_http);
        CHECK(kind_of({{"url", "http://127.0.0.1:3001/sse"}}) == http::http_transport_kind::sse);
        CHECK(kind_of({{"url", "https://h/tenant/sse?token=x"}}) == http::http_transport_kind::sse);
        CHECK(kind_of({{"url", "https://h/sse/mcp"}}) ==
              http::http_transport_kind::streamable_http);
    }

    TEST_CASE("a host that merely contains mcp or sse does not decide") {
        for (const char* url : {"https://mcp.example.com/x", "https://sse.example.com/",
                                "https://example.com/mcpserver", "https://example.com/x?p=/mcp",
                                "https://my-mcp.example.com"}) {
            CHECK_THROWS_WITH_AS_MESSAGE(kind_of({{"url", url}}),
                                         doctest::Contains("Specify \"type\""),
                                         std::invalid_argument, url);
        }
    }

    TEST_CASE("headers, timeouts and terminate_on_close are honoured") {
        const auto config = http::parse_http_server_params(
            {{"url", "https://h/mcp"},
             {"headers", {{"Authorization", "Bearer t"}, {"X-Tenant", "a"}}},
             {"timeout", 2.5},
             {"sse_read_timeout", 60},
             {"terminate_on_close", false}});
        CHECK(config.options.url == "https://h/mcp");
        CHECK(config.options.headers ==
              http::header_map{{"Authorization", "Bearer t"}, {"X-Tenant", "a"}});
        CHECK(config.options.connect_timeout == 2500ms);
        CHECK(config.options.read_timeout == 60000ms);
        CHECK_FALSE(config.options.terminate_on_close);
        CHECK(config.ignored_keys.empty());
    }

    TEST_CASE("defaults when only a url is given") {
        const auto config = http::parse_http_server_params({{"url", "http://h/mcp"}});
        CHECK(config.options.connect_timeout == 30s);
        CHECK(config.options.read_timeout == 300s);
        CHECK(config.options.headers.empty());
        CHECK(config.options.terminate_on_close);
    }

    TEST_CASE("bad values name the key") {
        const json base = {{"url", "http://h/mcp"}};
        auto with = [&](const char* key, json value) {
            json params = base;
            params[key] = std::move(value);
            return params;
        };
        CHECK_THROWS_WITH(kind_of(with("timeout", "10")), doctest::Contains("\"timeout\""));
        CHECK_THROWS_WITH(kind_of(with("timeout", 0)), doctest::Contains("positive number"));
        CHECK_THROWS_WITH(kind_of(with("sse_read_timeout", -1)),
                          doctest::Contains("\"sse_read_timeout\""));
        CHECK_THROWS_WITH(kind_of(with("headers", json::array())), doctest::Contains("headers"));
        CHECK_THROWS_WITH(kind_of(with("headers", {{"X-Num", 5}})), doctest::Contains("X-Num"));
        CHECK_THROWS_WITH(kind_of(with("headers", {{"Host", "evil"}})),
                          doctest::Contains("set by the MCP HTTP transport"));
        CHECK_THROWS_WITH(kind_of(with("terminate_on_close", "yes")),
                          doctest::Contains("terminate_on_close"));
        CHECK_THROWS_WITH(kind_of({{"command", "node"}}), doctest::Contains("\"url\""));
        CHECK_THROWS_WITH(kind_of({{"url", "ftp://h/mcp"}}), doctest::Contains("scheme"));
        CHECK_THROWS_AS(kind_of(json::array()), std::invalid_argument);
    }

    TEST_CASE("unknown keys are collected, not fatal") {
        const auto config = http::parse_http_server_params(
            {{"url", "http://h/mcp"}, {"env", {{"A", "b"}}}, {"auth", "x"}});
        CHECK(config.ignored_keys == std::vector<std::string>{"auth", "env"});
    }

    TEST_CASE("make_http_transport builds the chosen transport without connecting") {
        boost::asio::io_context io;
        const auto streamable = http::make_http_transport(
            io, {{"url", "http://127.0.0.1:9/mcp"}, {"headers", {{"Authorization", "x"}}}},
            "everything");
        CHECK(std::dynamic_pointer_cast<http::streamable_http_transport>(streamable) != nullptr);
        CHECK(streamable->describe() == "MCP server 'everything' (http://127.0.0.1:9/mcp)");
        const auto sse =
            http::make_http_transport(io, {{"url", "http://127.0.0.1:9/sse?k=secret"}});
        CHECK(std::dynamic_pointer_cast<http::sse_transport>(sse) != nullptr);
        CHECK(sse->describe() == "MCP server at http://127.0.0.1:9/sse");
        CHECK(io.poll() == 0);
    }
}
