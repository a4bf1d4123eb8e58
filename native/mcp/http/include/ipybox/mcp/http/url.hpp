#pragma once
// HTTP(S) URLs as the MCP HTTP transports need them: parse, print, resolve a reference against a
// base (RFC 3986 §5), compare origins. Pure, no I/O, thread-safe; `url` is a plain value.
//
// Accepted: scheme http or https (any case), a host that is a registered name, an IPv4 address or
// a bracketed IPv6 literal, an optional port (default 80/443), a path and a query. A fragment is
// dropped. Refused, with a message naming the URL and the problem: other schemes, user info
// ("user:pass@" - credentials belong in headers), empty hosts, ports outside 1-65535, zone ids in
// IPv6 literals, and any byte outside visible ASCII (spaces, control characters, raw UTF-8):
// the target is copied into the request line, so nothing may be able to break it.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ipybox::mcp::http {

class url_error : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

struct url {
    std::string scheme;  // "http" or "https"
    std::string host;    // lower case; an IPv6 literal without its brackets, e.g. "::1"
    std::uint16_t port = 0;
    std::string path = "/";  // never empty; percent-encoding kept as written
    std::string query;       // without the '?'; empty when absent

    bool uses_tls() const { return scheme == "https"; }
    bool is_ipv6_literal() const;
    bool has_default_port() const;
    // The host as written in a URL or a Host header: "[::1]" for IPv6 literals.
    std::string host_for_authority() const;
    std::string host_header() const;  // "example.com" or "example.com:8443"
    std::string origin() const;       // "https://example.com:8443"
    std::string target() const;       // "/path?query": the request target
    std::string to_string() const;    // origin() + target()
    // Path split on '/', without the leading empty segment: "/a/mcp/" -> {"a", "mcp", ""}.
    std::vector<std::string> path_segments() const;

    friend bool operator==(const url&, const url&) = default;
};

// Throws url_error.
url parse_url(std::string_view text);

// `reference` (absolute URL, "//host/...", "/path", "path", "?query" or "") resolved against
// `base`, with dot segments removed. Throws url_error when the result is not a valid URL.
url resolve_url(const url& base, std::string_view reference);

// Same scheme, host and port.
bool same_origin(const url& a, const url& b);

}  // namespace ipybox::mcp::http
