#include "ipybox/approval/policy.hpp"

namespace ipybox::approval {
namespace {

using nlohmann::json;

action parse_action(const json& value, const std::string& where) {
    if (value == "allow") return action::allow;
    if (value == "deny") return action::deny;
    if (value == "ask") return action::ask;
    throw std::invalid_argument(where + " is " + value.dump() +
                                "; it must be \"allow\", \"deny\" or \"ask\"");
}

// A misspelt key would otherwise be ignored and leave the default (allow) in force.
void refuse_unknown_keys(const json& object, std::initializer_list<std::string_view> known,
                         const std::string& where) {
    for (const auto& [key, value] : object.items()) {
        bool found = false;
        for (const auto name : known) found = found || key == name;
        if (found) continue;
        std::string expected;
        for (const auto name : known) {
            expected += (expected.empty() ? "\"" : ", \"") + std::string(name) + "\"";
        }
        throw std::invalid_argument("unknown key \"" + key + "\" in " + where + " (expected " +
                                    expected + ")");
    }
}

rule parse_rule(const json& entry, const std::string& where) {
    if (!entry.is_object()) {
        throw std::invalid_argument(where +
                                    " must be an object like {\"match\": \"server.tool\", "
                                    "\"action\": \"deny\"}");
    }
    refuse_unknown_keys(entry, {"match", "action"}, where);
    if (!entry.contains("match") || !entry["match"].is_string()) {
        throw std::invalid_argument(where + " needs a \"match\" string like \"server.tool\"");
    }
    auto pattern = entry["match"].get<std::string>();
    // Every name a rule is matched against is `server.tool`: without a dot or a wildcard the
    // rule could never apply.
    if (pattern.find_first_of(".*?") == std::string::npos) {
        throw std::invalid_argument(where + ".match \"" + pattern +
                                    "\" can never match: names are \"server.tool\"");
    }
    if (!entry.contains("action")) throw std::invalid_argument(where + " needs an \"action\"");
    return {std::move(pattern), parse_action(entry["action"], where + ".action")};
}

}  // namespace

std::string_view to_string(action what) {
    switch (what) {
        case action::allow:
            return "allow";
        case action::deny:
            return "deny";
        case action::ask:
            return "ask";
    }
    return "?";
}

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

bool rule::matches(const request& asked) const {
    for (const auto& name : policy_names(asked)) {
        if (glob_match(pattern, name)) return true;
    }
    return false;
}

policy::policy(std::vector<rule> rules, action fallback)
    : rules_(std::move(rules)), fallback_(fallback) {}

policy policy::from_json(const json& document) {
    if (!document.is_object()) throw std::invalid_argument("an approval policy is a JSON object");
    refuse_unknown_keys(document, {"default", "rules"}, "the approval policy");
    action fallback = action::allow;
    if (document.contains("default")) fallback = parse_action(document["default"], "\"default\"");
    std::vector<rule> rules;
    if (document.contains("rules")) {
        const auto& list = document["rules"];
        if (!list.is_array()) throw std::invalid_argument("\"rules\" must be a list");
        for (std::size_t i = 0; i < list.size(); ++i) {
            rules.push_back(parse_rule(list[i], "rules[" + std::to_string(i) + "]"));
        }
    }
    return policy(std::move(rules), fallback);
}

action policy::action_for(const request& what) const {
    const bool explicit_only = needs_a_person(what);
    for (const auto& r : rules_) {
        const bool wildcard = r.pattern.find_first_of("*?") != std::string::npos;
        if (explicit_only && wildcard && r.what == action::allow) continue;
        if (r.matches(what)) return r.what;
    }
    return explicit_only && fallback_ == action::allow ? action::ask : fallback_;
}

std::vector<std::vector<std::size_t>> policy::coverage(const std::vector<request>& tools) const {
    std::vector<std::vector<std::size_t>> covered(rules_.size());
    for (std::size_t r = 0; r < rules_.size(); ++r) {
        for (std::size_t t = 0; t < tools.size(); ++t) {
            if (rules_[r].matches(tools[t])) covered[r].push_back(t);
        }
    }
    return covered;
}

std::string policy::describe_rule(std::size_t index) const {
    const auto& r = rules_.at(index);
    return "rules[" + std::to_string(index) + "] \"" + r.pattern + "\" (" +
           std::string(to_string(r.what)) + ")";
}

std::string policy::rules_covering_none(const std::vector<request>& tools) const {
    std::string text;
    const auto covered = coverage(tools);
    for (std::size_t r = 0; r < covered.size(); ++r) {
        if (covered[r].empty()) text += describe_rule(r) + "\n";
    }
    return text;
}

}  // namespace ipybox::approval
