#pragma once
// Approval rules by `server.tool` pattern: allow, deny or ask. Pure and immutable once built;
// safe to share between threads. Requests other than tool calls are matched by the names
// policy_names() gives them (`ipybox.shell`, `ipybox.shell_magic`, `ipybox.save_gentool`).
//
// File format (JSON):
//   {"default": "allow",
//    "rules": [{"match": "filesystem.write_*", "action": "ask"},
//              {"match": "github.*", "action": "deny"}]}
// Patterns use `*` (any run of characters) and `?` (one character). A rule matches a tool by its
// MCP name (`everything.get-env`) and by its generated Python name (`everything.get_env`, the
// module under mcptools/) alike. The first matching rule wins; without a match the default
// applies (allow, as the reference does).
//
// Parsing fails closed: an unknown key, a wrong type, an unknown action or a pattern that can
// never match a `server.tool` name is an error naming it, never silently ignored.
#include <stdexcept>
#include <string>
#include <vector>

#include "ipybox/approval/request.hpp"

namespace ipybox::approval {

enum class action { allow, deny, ask };

std::string_view to_string(action what);

struct rule {
    std::string pattern;
    action what = action::allow;

    // True if the pattern matches one of the request's policy_names().
    bool matches(const request& asked) const;
};

class policy {
  public:
    policy() = default;
    policy(std::vector<rule> rules, action fallback);

    // Throws std::invalid_argument naming the offending key, value or rule.
    static policy from_json(const nlohmann::json& document);

    // The first matching rule's action, else the default. A request that needs_a_person() (a
    // save into the user library, dependencies to add) is allowed only by a rule naming it
    // exactly: rules whose pattern has a wildcard apply to it only when they deny or ask,
    // `ipybox.save_gentool` (no `*` or `?`) applies whatever its action, and where no rule
    // applies, an allowing default becomes ask. So "allow everything" never allows them.
    action action_for(const request& what) const;
    action action_for(const tool_call& call) const { return action_for(request(call)); }

    const std::vector<rule>& rules() const { return rules_; }
    action fallback() const { return fallback_; }

    // For each rule, in order, the indices into `tools` of the tools it matches (by either
    // name; a rule shadowed by an earlier one still lists them). An empty entry is a rule that
    // covers none of `tools`.
    std::vector<std::vector<std::size_t>> coverage(const std::vector<request>& tools) const;
    // `rules[i] "pattern" (action)`, as reports name a rule.
    std::string describe_rule(std::size_t index) const;
    // The rules that cover none of `tools`, described, one per line; empty when every rule
    // covers something.
    std::string rules_covering_none(const std::vector<request>& tools) const;

  private:
    std::vector<rule> rules_;
    action fallback_ = action::allow;
};

// True if `text` matches the glob `pattern` (`*` and `?`).
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace ipybox::approval
