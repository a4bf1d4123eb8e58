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

    TEST_CASE("a misspelt key is an error naming it, never a silent allow-all") {
        CHECK_THROWS_WITH_AS(policy::from_json(nlohmann::json::parse(R"({"defualt": "deny"})")),
                             doctest::Contains("unknown key \"defualt\""), std::invalid_argument);
        CHECK_THROWS_WITH_AS(
            policy::from_json(nlohmann::json::parse(
                R"({"rules": [{"match": "fs.*", "action": "deny", "acton": "allow"}]})")),
            doctest::Contains("unknown key \"acton\" in rules[0]"), std::invalid_argument);
        // Control: the same documents spelt right are accepted.
        CHECK(policy::from_json(nlohmann::json::parse(R"({"default": "deny"})")).fallback() ==
              action::deny);
        CHECK(policy::from_json(
                  nlohmann::json::parse(R"({"rules": [{"match": "fs.*", "action": "deny"}]})"))
                  .rules()
                  .size() == 1);
    }

    TEST_CASE("an unknown action, a missing action or a pattern that can never match is refused") {
        CHECK_THROWS_WITH_AS(policy::from_json(nlohmann::json::parse(
                                 R"({"rules": [{"match": "fs.*", "action": "Deny"}]})")),
                             doctest::Contains("\"Deny\""), std::invalid_argument);
        CHECK_THROWS_WITH_AS(
            policy::from_json(nlohmann::json::parse(R"({"rules": [{"match": "fs.*"}]})")),
            doctest::Contains("rules[0] needs an \"action\""), std::invalid_argument);
        CHECK_THROWS_WITH_AS(
            policy::from_json(
                nlohmann::json::parse(R"({"rules": [{"match": "get_env", "action": "deny"}]})")),
            doctest::Contains("\"get_env\" can never match"), std::invalid_argument);
        CHECK_THROWS_WITH_AS(policy::from_json(nlohmann::json::parse(R"({"rules": ["fs.*"]})")),
                             doctest::Contains("rules[0] must be an object"),
                             std::invalid_argument);
    }

    TEST_CASE("a rule matches a tool by its MCP name and by its generated Python name alike") {
        const auto by_python = policy::from_json(nlohmann::json::parse(
            R"({"rules": [{"match": "everything.get_env", "action": "deny"}]})"));
        CHECK(by_python.action_for({"everything", "get-env", {}, "get_env"}) == action::deny);
        const auto by_mcp = policy::from_json(nlohmann::json::parse(
            R"({"rules": [{"match": "everything.get-env", "action": "deny"}]})"));
        CHECK(by_mcp.action_for({"everything", "get-env", {}, "get_env"}) == action::deny);
        // Control: another tool of the server is not caught by either rule.
        CHECK(by_python.action_for({"everything", "echo", {}, "echo"}) == action::allow);
        CHECK(by_mcp.action_for({"everything", "echo", {}, "echo"}) == action::allow);
        // Without a known Python name only the MCP name can match.
        CHECK(by_python.action_for({"everything", "get-env", {}}) == action::allow);
    }

    TEST_CASE("coverage lists the tools each rule matches and leaves rules matching none empty") {
        const auto p = policy::from_json(nlohmann::json::parse(R"({"rules": [
            {"match": "everything.get_*", "action": "deny"},
            {"match": "everything.*", "action": "ask"},
            {"match": "evrything.echo", "action": "deny"}]})"));
        const std::vector<request> tools = {tool_call{"everything", "get-env", {}, "get_env"},
                                            tool_call{"everything", "echo", {}, "echo"}};
        const auto covered = p.coverage(tools);
        REQUIRE(covered.size() == 3);
        CHECK(covered[0] == std::vector<std::size_t>{0});
        CHECK(covered[1] == std::vector<std::size_t>{0, 1});
        CHECK(covered[2].empty());
    }

    TEST_CASE("a call describes itself with its arguments, shortened when long") {
        const tool_call call{"fs", "read_file", {{"path", "/tmp/x"}}};
        CHECK(call.describe() == "fs.read_file(path=\"/tmp/x\")");
        const tool_call big{"fs", "write", {{"data", std::string(1000, 'x')}}};
        CHECK(big.describe(50) == "fs.write(data=\"" + std::string(25, 'x') +
                                      "...[950 of 1000 characters cut]..." + std::string(25, 'x') +
                                      "\")");
    }
}

TEST_SUITE("approval.policy.explicit") {
    const ipybox::approval::save_action save{"tools", "fetch", {}, std::nullopt, false};
    // The control: a tool call under the same policy name passes where a save is asked.
    const tool_call lookalike{"ipybox", "save_gentool", {}, "save_gentool"};

    TEST_CASE("allow-all rules and an allowing default ask about a save instead") {
        const auto allow_all = policy::from_json(nlohmann::json::parse(
            R"({"rules": [{"match": "*", "action": "allow"}, {"match": "ipybox.*", "action": "allow"}]})"));
        CHECK(allow_all.action_for(save) == action::ask);
        CHECK(allow_all.action_for(lookalike) == action::allow);
        CHECK(policy().action_for(save) == action::ask);
        CHECK(policy().action_for(lookalike) == action::allow);
    }

    TEST_CASE("only a rule naming the save exactly allows it") {
        const auto exact = policy::from_json(nlohmann::json::parse(
            R"({"rules": [{"match": "*", "action": "allow"},
                          {"match": "ipybox.save_gentool", "action": "allow"}]})"));
        CHECK(exact.action_for(save) == action::allow);
    }

    TEST_CASE("wildcard rules still deny or ask, and a denying default denies") {
        const auto deny = policy::from_json(nlohmann::json::parse(
            R"({"rules": [{"match": "ipybox.save_*", "action": "deny"},
                          {"match": "ipybox.save_gentool", "action": "allow"}]})"));
        CHECK(deny.action_for(save) == action::deny);
        const auto closed = policy::from_json(nlohmann::json::parse(R"({"default": "deny"})"));
        CHECK(closed.action_for(save) == action::deny);
        const auto asking = policy::from_json(nlohmann::json::parse(R"({"default": "ask"})"));
        CHECK(asking.action_for(save) == action::ask);
    }
}

TEST_SUITE("approval.policy.kinds") {
    TEST_CASE("shell commands and saves are matched by the policy's own names, no server's") {
        const shell_command line{shell_command::form::line, "ls", ""};
        const shell_command cell{shell_command::form::cell_magic, "ls\n", "bash"};
        const save_action save{"text", "shout", {}, std::nullopt, false};
        CHECK(policy_names(line) == std::vector<std::string>{"ipybox.shell"});
        CHECK(policy_names(cell) == std::vector<std::string>{"ipybox.shell_magic"});
        CHECK(policy_names(save) == std::vector<std::string>{"ipybox.save_gentool"});
        CHECK(policy_names(tool_call{"fs", "get-env", {}, "get_env"}) ==
              std::vector<std::string>{"fs.get-env", "fs.get_env"});
        const auto p = policy::from_json(nlohmann::json::parse(
            R"({"rules": [{"match": "ipybox.shell_magic", "action": "deny"},
                          {"match": "ipybox.shell*", "action": "ask"}]})"));
        CHECK(p.action_for(cell) == action::deny);
        CHECK(p.action_for(line) == action::ask);
        CHECK(p.action_for(tool_call{"fs", "shell", {}}) == action::allow);  // not a command
    }

    TEST_CASE("describe() names each kind on one line, untrusted text escaped") {
        CHECK(describe(shell_command{shell_command::form::line, "rm -rf ~\n\x1b[2J", ""}) ==
              "shell command \"rm -rf ~\\n\\x1b[2J\"");
        CHECK(describe(shell_command{shell_command::form::cell_magic, "echo", "bash"}) ==
              "cell run by \"bash\" \"echo\"");
        CHECK(describe(save_action{"text", "shout", {{"api.py", ""}}, std::nullopt, true}) ==
              "save of gentools.text.shout (1 file, replacing)");
        CHECK(describe(tool_call{"fs", "read", {{"path", "/x"}}}) == "fs.read(path=\"/x\")");
    }
}

TEST_SUITE("approval.describe") {
    TEST_CASE("every argument is shown, a long one cut in the middle with its length") {
        const std::string filler(5000, 'x');
        const tool_call call{
            "fs", "write_file", {{"content", filler}, {"path", "/home/user/.ssh/authorized_keys"}}};
        const auto shown = call.describe();
        CHECK(shown.find("path=\"/home/user/.ssh/authorized_keys\"") != std::string::npos);
        CHECK(shown.find("...[4800 of 5000 characters cut]...") != std::string::npos);
        CHECK(shown.size() < 400);
    }

    TEST_CASE("names and values from outside are escaped, not sent to the terminal") {
        const tool_call call{"fs", "read\x1b[2J_file", {{"p\nq", "a\x1b]52;c;x\x07"}}};
        CHECK(call.describe() == "fs.read\\x1b[2J_file(\"p\\nq\"=\"a\\x1b]52;c;x\\x07\")");
    }

    TEST_CASE("nested values show every string escaped and are cut as a whole") {
        CHECK(describe_value(nlohmann::json::parse(R"({"k\"": ["\u202e", 1, null]})")) ==
              "{\"k\\\"\": [\"\\u202e\", 1, null]}");
        CHECK(describe_value(nlohmann::json::array({1234567, 7654321}), 8) ==
              "[123...[10 of 18 characters cut]...321]");
    }
}
