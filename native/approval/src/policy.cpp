#include "ipybox/approval/policy.hpp"

namespace ipybox::approval {
namespace {

action parse_action(const nlohmann::json& value, const std::string& where) {
    if (value == "allow") return action::allow;
    if (value == "deny") return action::deny;
    if (value == "ask") return action::ask;
    throw std::invalid_argument(where + " must be \"allow\", \"deny\" or \"ask\"");
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view text) {
    // Iterative matcher with backtracking to the last star: linear in practice, no recursion.
    std::size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
    while (t < text.size()) {
        if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
            ++p;
            ++t;
        } else if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            resume = t;
        } else if (star != std::string_view::npos) {
            p = star + 1;
            t = ++resume;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

policy::policy(std::vector<rule> rules, action fallback)
    : rules_(std::move(rules)), fallback_(fallback) {}

policy policy::from_json(const nlohmann::json& document) {
    if (!document.is_object()) throw std::invalid_argument("an approval policy is a JSON object");
    action fallback = action::allow;
    if (document.contains("default")) fallback = parse_action(document["default"], "\"default\"");
    std::vector<rule> rules;
    if (document.contains("rules")) {
        const auto& list = document["rules"];
        if (!list.is_array()) throw std::invalid_argument("\"rules\" must be a list");
        for (std::size_t i = 0; i < list.size(); ++i) {
            const auto where = "rules[" + std::to_string(i) + "]";
            const auto& entry = list[i];
            if (!entry.is_object() || !entry.contains("match") || !entry["match"].is_string()) {
                throw std::invalid_argument(where +
                                            " needs a \"match\" string like \"server.tool\"");
            }
            rules.push_back(
                {entry["match"].get<std::string>(),
                 parse_action(entry.value("action", nlohmann::json()), where + ".action")});
        }
    }
    return policy(std::move(rules), fallback);
}

action policy::action_for(const tool_call& call) const {
    const std::string name = call.server_name + "." + call.tool_name;
    for (const auto& r : rules_) {
        if (glob_match(r.pattern, name)) return r.what;
    }
    return fallback_;
}

}  // namespace ipybox::approval
