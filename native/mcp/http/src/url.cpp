#include "ipybox/mcp/http/url.hpp"

#include <algorithm>
#include <cctype>

namespace ipybox::mcp::http {
namespace {

// The problem is told without quoting a piece of the URL: a piece of a value filled from a
// ${VAR} is not something the redactor can recognise, while the whole URL, quoted here, is.
[[noreturn]] void fail(std::string_view text, const std::string& problem) {
    throw url_error("invalid URL '" + std::string(text) + "': " + problem);
}

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

bool is_visible_ascii(unsigned char c) {
    return c >= 0x21 && c <= 0x7e;
}

bool is_reg_name_char(unsigned char c) {
    if (std::isalnum(c)) return true;
    return std::string_view("-._~!$&'()*+,;=%").find(static_cast<char>(c)) !=
           std::string_view::npos;
}

// Length of "scheme:" at the start of `text` (without the colon), or 0 when there is none.
std::size_t scheme_length(std::string_view text) {
    if (text.empty() || !std::isalpha(static_cast<unsigned char>(text[0]))) return 0;
    for (std::size_t i = 1; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == ':') return i;
        if (!std::isalnum(c) && c != '+' && c != '-' && c != '.') return 0;
    }
    return 0;
}

std::uint16_t parse_port(std::string_view text, std::string_view digits) {
    if (digits.size() > 5 || !std::all_of(digits.begin(), digits.end(),
                                          [](unsigned char c) { return std::isdigit(c) != 0; })) {
        fail(text, "the port is not a number from 1 to 65535");
    }
    const auto value = std::stoul(std::string(digits));
    if (value == 0 || value > 65535) {
        fail(text, "the port is outside 1-65535");
    }
    return static_cast<std::uint16_t>(value);
}

// RFC 3986 §5.2.4.
std::string remove_dot_segments(std::string input) {
    std::string output;
    auto drop_last_segment = [&output] {
        const auto slash = output.rfind('/');
        output.erase(slash == std::string::npos ? 0 : slash);
    };
    while (!input.empty()) {
        if (input.starts_with("../")) {
            input.erase(0, 3);
        } else if (input.starts_with("./")) {
            input.erase(0, 2);
        } else if (input.starts_with("/./")) {
            input.replace(0, 3, "/");
        } else if (input == "/.") {
            input = "/";
        } else if (input.starts_with("/../")) {
            input.replace(0, 4, "/");
            drop_last_segment();
        } else if (input == "/..") {
            input = "/";
            drop_last_segment();
        } else if (input == "." || input == "..") {
            input.clear();
        } else {
            const auto next = input.find('/', input[0] == '/' ? 1 : 0);
            output += input.substr(0, next);
            input.erase(0, next == std::string::npos ? input.size() : next);
        }
    }
    return output;
}

}  // namespace

bool url::is_ipv6_literal() const {
    return host.find(':') != std::string::npos;
}

bool url::has_default_port() const {
    return port == (uses_tls() ? 443 : 80);
}

std::string url::host_for_authority() const {
    return is_ipv6_literal() ? "[" + host + "]" : host;
}

std::string url::host_header() const {
    return has_default_port() ? host_for_authority()
                              : host_for_authority() + ":" + std::to_string(port);
}

std::string url::origin() const {
    return scheme + "://" + host_header();
}

std::string url::target() const {
    return query.empty() ? path : path + "?" + query;
}

std::string url::to_string() const {
    return origin() + target();
}

std::vector<std::string> url::path_segments() const {
    std::vector<std::string> segments;
    std::size_t start = path.starts_with('/') ? 1 : 0;
    while (true) {
        const auto slash = path.find('/', start);
        segments.push_back(path.substr(start, slash == std::string::npos ? slash : slash - start));
        if (slash == std::string::npos) break;
        start = slash + 1;
    }
    return segments;
}

url parse_url(std::string_view text) {
    if (text.empty()) fail(text, "it is empty");
    for (const unsigned char c : text) {
        if (!is_visible_ascii(c)) {
            fail(text,
                 "it contains a space, a control character or a non-ASCII byte "
                 "(percent-encode it)");
        }
    }
    const auto scheme_end = scheme_length(text);
    if (scheme_end == 0 || text.substr(scheme_end, 3) != "://") {
        fail(text, "it does not start with http:// or https://");
    }
    url result;
    result.scheme = lower(text.substr(0, scheme_end));
    if (result.scheme != "http" && result.scheme != "https") {
        fail(text, "the scheme is not supported (use http or https)");
    }
    std::string_view rest = text.substr(scheme_end + 3);
    const auto authority_end = rest.find_first_of("/?#");
    const auto authority = rest.substr(0, authority_end);
    rest =
        authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
    if (authority.find('@') != std::string_view::npos) {
        fail(text, "user info (user:password@) is not supported; send credentials in a header");
    }

    std::string_view port_text;
    bool has_port = false;
    if (authority.starts_with('[')) {
        const auto close = authority.find(']');
        if (close == std::string_view::npos) fail(text, "the IPv6 literal has no closing ']'");
        const auto literal = authority.substr(1, close - 1);
        if (literal.find('%') != std::string_view::npos) {
            fail(text, "IPv6 zone ids are not supported");
        }
        const bool valid = !literal.empty() && literal.find(':') != std::string_view::npos &&
                           std::all_of(literal.begin(), literal.end(), [](unsigned char c) {
                               return std::isxdigit(c) || c == ':' || c == '.';
                           });
        if (!valid) fail(text, "the host in brackets is not an IPv6 address");
        result.host = lower(literal);
        const auto after = authority.substr(close + 1);
        if (!after.empty()) {
            if (after[0] != ':') fail(text, "unexpected text after the IPv6 literal");
            has_port = true;
            port_text = after.substr(1);
        }
    } else {
        const auto colon = authority.find(':');
        const auto host = authority.substr(0, colon);
        if (colon != std::string_view::npos) {
            has_port = true;
            port_text = authority.substr(colon + 1);
        }
        if (host.empty()) fail(text, "the host is empty");
        if (!std::all_of(host.begin(), host.end(), is_reg_name_char)) {
            fail(text, "the host contains characters not allowed");
        }
        result.host = lower(host);
    }
    result.port = has_port && !port_text.empty()
                      ? parse_port(text, port_text)
                      : static_cast<std::uint16_t>(result.uses_tls() ? 443 : 80);

    const auto fragment = rest.find('#');
    rest = rest.substr(0, fragment);
    const auto question = rest.find('?');
    result.path = std::string(rest.substr(0, question));
    if (result.path.empty()) result.path = "/";
    if (question != std::string_view::npos) result.query = std::string(rest.substr(question + 1));
    return result;
}

url resolve_url(const url& base, std::string_view reference) {
    reference = reference.substr(0, reference.find('#'));
    if (scheme_length(reference) != 0) return parse_url(reference);
    if (reference.starts_with("//")) return parse_url(base.scheme + ":" + std::string(reference));

    const auto question = reference.find('?');
    const auto ref_path = reference.substr(0, question);
    const bool has_query = question != std::string_view::npos;
    const std::string ref_query = has_query ? std::string(reference.substr(question + 1)) : "";

    url result = base;
    if (ref_path.empty()) {
        if (has_query) result.query = ref_query;
    } else if (ref_path.starts_with('/')) {
        result.path = remove_dot_segments(std::string(ref_path));
        result.query = ref_query;
    } else {
        const auto slash = base.path.rfind('/');
        const std::string directory =
            slash == std::string::npos ? "/" : base.path.substr(0, slash + 1);
        result.path = remove_dot_segments(directory + std::string(ref_path));
        result.query = ref_query;
    }
    if (result.path.empty() || result.path[0] != '/') result.path.insert(0, "/");
    // Re-parsing validates what the reference contributed (spaces, control characters).
    return parse_url(result.to_string());
}

bool same_origin(const url& a, const url& b) {
    return a.scheme == b.scheme && a.host == b.host && a.port == b.port;
}

}  // namespace ipybox::mcp::http
