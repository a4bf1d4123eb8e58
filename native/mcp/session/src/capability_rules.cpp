#include "capability_rules.hpp"

#include <array>
#include <span>
#include <utility>

namespace ipybox::mcp::session::detail {
namespace {

using rule = std::pair<std::string_view, std::string_view>;  // method or "prefix/", capability

// A server's capabilities, which a client's requests need.
constexpr std::array<rule, 5> server_capabilities = {{
    {"tools/", "tools"},
    {"resources/", "resources"},
    {"prompts/", "prompts"},
    {"logging/setLevel", "logging"},
    {"completion/complete", "completions"},
}};

// A client's capabilities, which a server's requests need.
constexpr std::array<rule, 3> client_capabilities = {{
    {"sampling/createMessage", "sampling"},
    {"elicitation/create", "elicitation"},
    {"roots/list", "roots"},
}};

bool matches(std::string_view pattern, std::string_view method) {
    if (!pattern.empty() && pattern.back() == '/')
        return method.substr(0, pattern.size()) == pattern;
    return method == pattern;
}

}  // namespace

std::optional<std::string_view> capability_for(sender from, std::string_view method) {
    const std::span<const rule> rules = from == sender::client
                                            ? std::span<const rule>(server_capabilities)
                                            : std::span<const rule>(client_capabilities);
    for (const auto& [pattern, capability] : rules) {
        if (matches(pattern, method)) return capability;
    }
    return std::nullopt;
}

}  // namespace ipybox::mcp::session::detail
