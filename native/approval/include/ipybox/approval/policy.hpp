#pragma once
// Approval rules by `server.tool` pattern: allow, deny or ask. Pure and immutable once built;
// safe to share between threads.
//
// File format (JSON):
//   {"default": "allow",
//    "rules": [{"match": "filesystem.write_*", "action": "ask"},
//              {"match": "github.*", "action": "deny"}]}
// Patterns use `*` (any run of characters) and `?` (one character); the first matching rule
// wins; without a match the default applies (allow, as the reference does).
#include <stdexcept>
#include <string>
#include <vector>

#include "ipybox/approval/gate.hpp"

namespace ipybox::approval {

enum class action { allow, deny, ask };

struct rule {
    std::string pattern;
    action what = action::allow;
};

class policy {
  public:
    policy() = default;
    policy(std::vector<rule> rules, action fallback);

    // Throws std::invalid_argument naming the offending field.
    static policy from_json(const nlohmann::json& document);

    action action_for(const tool_call& call) const;

  private:
    std::vector<rule> rules_;
    action fallback_ = action::allow;
};

// True if `text` matches the glob `pattern` (`*` and `?`).
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace ipybox::approval
