#include <doctest/doctest.h>

#include "ipybox/approval/policy.hpp"

using namespace ipybox::approval;

TEST_SUITE("approval.policy") {
    TEST_CASE("glob patterns match server.tool names") {
        CHECK(glob_match("github.*", "github.search_repositories"));
        CHECK(glob_match("*.write_*", "filesystem.write_file"));
        CHECK(glob_match("fs.rea?_file", "fs.read_file"));
        CHECK_FALSE(glob_match("github.*", "gitlab.search"));
        CHECK_FALSE(glob_match("fs.read", "fs.read_file"));
        CHECK(glob_match("*", ""));
    }

    TEST_CASE("the first matching rule wins, else the default") {
        const auto p = policy::from_json(nlohmann::json::parse(R"({
            "default": "deny",
            "rules": [{"match": "fs.read_*", "action": "allow"},
                      {"match": "fs.*", "action": "ask"}]})"));
        CHECK(p.action_for({"fs", "read_file", {}}) == action::allow);
        CHECK(p.action_for({"fs", "write_file", {}}) == action::ask);
        CHECK(p.action_for({"github", "search", {}}) == action::deny);
    }

    TEST_CASE("without a file everything is allowed, as in the reference") {
        CHECK(policy().action_for({"any", "tool", {}}) == action::allow);
    }

    TEST_CASE("a malformed policy names the offending field") {
        CHECK_THROWS_WITH_AS(policy::from_json(nlohmann::json::parse(R"({"default": "maybe"})")),
                             doctest::Contains("\"default\""), std::invalid_argument);
        CHECK_THROWS_WITH_AS(
            policy::from_json(nlohmann::json::parse(R"({"rules": [{"action": "allow"}]})")),
            doctest::Contains("rules[0]"), std::invalid_argument);
    }

    TEST_CASE("a call describes itself with its arguments, shortened when long") {
        const tool_call call{"fs", "read_file", {{"path", "/tmp/x"}}};
        CHECK(call.describe() == "fs.read_file(path=\"/tmp/x\")");
        const tool_call big{"fs", "write", {{"data", std::string(1000, 'x')}}};
        CHECK(big.describe(50).size() < 80);
    }
}
