// URL parsing, printing, reference resolution (RFC 3986 §5.4 examples) and origins.
#include <doctest/doctest.h>

#include "ipybox/mcp/http/url.hpp"

using ipybox::mcp::http::parse_url;
using ipybox::mcp::http::resolve_url;
using ipybox::mcp::http::same_origin;
using ipybox::mcp::http::url_error;

namespace {

std::string resolved(const std::string& base, const std::string& reference) {
    return resolve_url(parse_url(base), reference).to_string();
}

}  // namespace

TEST_SUITE("mcp.http.url") {
    TEST_CASE("default ports, lower-cased scheme and host, path and query") {
        const auto plain = parse_url("HTTP://Example.COM");
        CHECK(plain.scheme == "http");
        CHECK(plain.host == "example.com");
        CHECK(plain.port == 80);
        CHECK(plain.path == "/");
        CHECK(plain.query.empty());
        CHECK(plain.to_string() == "http://example.com/");

        const auto secure = parse_url("https://api.example.com:8443/v1/mcp?key=a%20b#frag");
        CHECK(secure.uses_tls());
        CHECK(secure.port == 8443);
        CHECK(secure.path == "/v1/mcp");
        CHECK(secure.query == "key=a%20b");
        CHECK(secure.target() == "/v1/mcp?key=a%20b");
        CHECK(secure.host_header() == "api.example.com:8443");
        CHECK(secure.origin() == "https://api.example.com:8443");
        CHECK(parse_url("https://h:443/").host_header() == "h");
        CHECK(parse_url("http://h:/x").port == 80);
        CHECK(parse_url("http://h?q=1").target() == "/?q=1");
    }

    TEST_CASE("IPv6 literals keep their brackets only in authorities") {
        const auto v6 = parse_url("http://[::1]:3001/mcp");
        CHECK(v6.host == "::1");
        CHECK(v6.is_ipv6_literal());
        CHECK(v6.host_header() == "[::1]:3001");
        CHECK(v6.to_string() == "http://[::1]:3001/mcp");
        CHECK(parse_url("https://[2001:DB8::7]/").host == "2001:db8::7");
        CHECK_FALSE(parse_url("http://127.0.0.1:9/").is_ipv6_literal());
    }

    TEST_CASE("refuses what it cannot safely use") {
        for (const char* text :
             {"", "example.com/mcp", "ftp://example.com/", "http:/x", "http://user:pw@h/",
              "http:///path", "http://h:0/", "http://h:65536/", "http://h:80x/", "http://[::1/",
              "http://[fe80::1%25eth0]/", "http://[zz::1]/", "http://h/a b", "http://h/\r\nX: y",
              "http://h\xC3\xA9/", "http://h/\t"}) {
            CHECK_THROWS_AS_MESSAGE(parse_url(text), url_error, "'" << text << "'");
        }
    }

    TEST_CASE("error messages name the URL and the problem") {
        CHECK_THROWS_WITH(parse_url("ftp://x/"),
                          doctest::Contains("'ftp://x/': the scheme is not supported"));
        CHECK_THROWS_WITH(parse_url("http://u:p@x/"), doctest::Contains("credentials in a header"));
    }

    TEST_CASE("an error quotes the whole URL, never a piece of it") {
        // A piece of a value filled from a ${VAR} would escape redaction, which knows only the
        // whole value (found by an outside attack: "the port 'k3yPART1' is not a number").
        for (const char* url : {"http://127.0.0.1:k3yPART1/SECRETPART2/mcp",
                                "http://[k3yPART1]/mcp", "https://k3y{PART1}.example/mcp",
                                "k3yPART1://host/mcp", "http://127.0.0.1:99999/mcp"}) {
            try {
                parse_url(url);
                FAIL("parsed " << url);
            } catch (const url_error& e) {
                const std::string text = e.what();
                CHECK(text.find(std::string("'") + url + "'") != std::string::npos);
                CHECK(text.find("k3yPART1'") == std::string::npos);
                CHECK(text.find("k3y{PART1}'") == std::string::npos);
                CHECK(text.find(" 99999 ") == std::string::npos);
            }
        }
    }

    TEST_CASE("path segments") {
        CHECK(parse_url("http://h/").path_segments() == std::vector<std::string>{""});
        CHECK(parse_url("http://h/a/mcp/").path_segments() ==
              std::vector<std::string>{"a", "mcp", ""});
        CHECK(parse_url("http://h/sse?x=/mcp").path_segments() == std::vector<std::string>{"sse"});
    }

    TEST_CASE("resolves the endpoint event of the legacy SSE transport") {
        CHECK(resolved("http://127.0.0.1:3001/sse", "/message?sessionId=abc") ==
              "http://127.0.0.1:3001/message?sessionId=abc");
        CHECK(resolved("http://127.0.0.1:3001/api/sse", "messages?s=1") ==
              "http://127.0.0.1:3001/api/messages?s=1");
        CHECK(resolved("http://127.0.0.1:3001/sse", "http://127.0.0.1:3001/m") ==
              "http://127.0.0.1:3001/m");
        CHECK(resolved("https://h/sse", "//other:81/x") == "https://other:81/x");
    }

    TEST_CASE("RFC 3986 section 5.4.1 normal examples") {
        const std::string base = "http://a/b/c/d;p?q";
        CHECK(resolved(base, "g") == "http://a/b/c/g");
        CHECK(resolved(base, "./g") == "http://a/b/c/g");
        CHECK(resolved(base, "g/") == "http://a/b/c/g/");
        CHECK(resolved(base, "/g") == "http://a/g");
        CHECK(resolved(base, "//g") == "http://g/");
        CHECK(resolved(base, "?y") == "http://a/b/c/d;p?y");
        CHECK(resolved(base, "g?y") == "http://a/b/c/g?y");
        CHECK(resolved(base, "#s") == "http://a/b/c/d;p?q");
        CHECK(resolved(base, "") == "http://a/b/c/d;p?q");
        CHECK(resolved(base, ".") == "http://a/b/c/");
        CHECK(resolved(base, "..") == "http://a/b/");
        CHECK(resolved(base, "../g") == "http://a/b/g");
        CHECK(resolved(base, "../..") == "http://a/");
        CHECK(resolved(base, "../../g") == "http://a/g");
    }

    TEST_CASE("RFC 3986 section 5.4.2 abnormal examples") {
        const std::string base = "http://a/b/c/d;p?q";
        CHECK(resolved(base, "../../../g") == "http://a/g");
        CHECK(resolved(base, "/./g") == "http://a/g");
        CHECK(resolved(base, "/../g") == "http://a/g");
        CHECK(resolved(base, "g.") == "http://a/b/c/g.");
        CHECK(resolved(base, "..g") == "http://a/b/c/..g");
        CHECK(resolved(base, "./g/.") == "http://a/b/c/g/");
        CHECK(resolved(base, "g/../h") == "http://a/b/c/h");
        CHECK(resolved(base, "g;x=1/../y") == "http://a/b/c/y");
    }

    TEST_CASE("a resolved reference is validated like any URL") {
        const auto base = parse_url("http://h/sse");
        CHECK_THROWS_AS(resolve_url(base, "/message?id=a b"), url_error);
        CHECK_THROWS_AS(resolve_url(base, "javascript:alert(1)"), url_error);
    }

    TEST_CASE("same origin means same scheme, host and port") {
        const auto base = parse_url("http://127.0.0.1:3001/sse");
        CHECK(same_origin(base, parse_url("http://127.0.0.1:3001/message")));
        CHECK_FALSE(same_origin(base, parse_url("https://127.0.0.1:3001/message")));
        CHECK_FALSE(same_origin(base, parse_url("http://127.0.0.1:3002/message")));
        CHECK_FALSE(same_origin(base, parse_url("http://localhost:3001/message")));
        CHECK(same_origin(parse_url("http://h/"), parse_url("http://H:80/x")));
    }
}
