// ${NAME} substitution in server parameters.
#include "ipybox/workspace/placeholders.hpp"

#include <doctest/doctest.h>

#include <map>

using namespace ipybox::workspace;
using nlohmann::json;

namespace {

variable_lookup from(std::map<std::string, std::string> values) {
    return [values = std::move(values)](std::string_view name) -> std::optional<std::string> {
        const auto it = values.find(std::string(name));
        if (it == values.end()) return std::nullopt;
        return it->second;
    };
}

}  // namespace

TEST_CASE("replaces placeholders in string values at any depth, keys untouched") {
    const json params = json::parse(R"({
        "command": "npx", "args": ["-y", "${PKG}"],
        "env": {"${KEY}": "${KEY}", "nested": [{"h": "Bearer ${TOKEN}"}]},
        "n": 3, "flag": true, "none": null})");
    const auto result =
        substitute_placeholders(params, from({{"PKG", "server"}, {"KEY", "k"}, {"TOKEN", "t0"}}));
    CHECK(result["args"] == json{"-y", "server"});
    CHECK(result["env"]["${KEY}"] == "k");
    CHECK(result["env"]["nested"][0]["h"] == "Bearer t0");
    CHECK(result["n"] == 3);
    CHECK(result["flag"] == true);
    CHECK(result["none"].is_null());
}

TEST_CASE("replaces several and repeated placeholders in one string") {
    const auto result =
        substitute_placeholders(json("${A}-${B}-${A}"), from({{"A", "1"}, {"B", "2"}}));
    CHECK(result == "1-2-1");
}

TEST_CASE("leaves text that only looks like a placeholder alone") {
    const auto lookup = from({{"A", "x"}});
    for (const char* text : {"$A", "${A-B}", "${}", "${1A}", "${A", "$${A}x"}) {
        INFO(text);
        const auto result = substitute_placeholders(json(text), lookup);
        if (std::string(text) == "$${A}x") {
            CHECK(result == "$xx");
        } else {
            CHECK(result == text);
        }
    }
}

TEST_CASE("does not rescan replacement text") {
    CHECK(substitute_placeholders(json("${A}"), from({{"A", "${B}"}, {"B", "no"}})) == "${B}");
}

TEST_CASE("names every missing variable once, sorted") {
    try {
        substitute_placeholders(json{{"a", "${ZED} ${ALPHA}"}, {"b", {"${ZED}"}}, {"c", "${OK}"}},
                                from({{"OK", "1"}}));
        FAIL("expected missing_variables_error");
    } catch (const missing_variables_error& error) {
        CHECK(error.names() == std::vector<std::string>{"ALPHA", "ZED"});
        CHECK(std::string(error.what()) == "undefined variable(s): ALPHA, ZED");
    }
}

TEST_CASE("passes values without placeholders through unchanged") {
    const json params = json::parse(R"({"a": [1, 2.5, "x", {"b": false}], "c": {}})");
    CHECK(substitute_placeholders(params, from({})) == params);
}

TEST_CASE("filling remembers every filled value under its name, for the redaction rule") {
    ipybox::core::redactor filled;
    const json params = json::parse(R"({"url": "http://h/mcp/${TOKEN}/mcp",
        "headers": {"Authorization": "Bearer ${KEY}"}, "args": ["${SHORT}"]})");
    const auto result = substitute_placeholders(
        params, from({{"TOKEN", "tok-123456"}, {"KEY", "key-abcdef"}, {"SHORT", "ab"}}), filled);
    CHECK(filled.redact(result.dump()) == json::parse(R"({"url": "http://h/mcp/${TOKEN}/mcp",
        "headers": {"Authorization": "Bearer ${KEY}"}, "args": ["ab"]})")
                                              .dump());
    CHECK(result["url"] == "http://h/mcp/tok-123456/mcp");  // the server itself gets the value
}

TEST_CASE("values filled before a missing variable was found are remembered too") {
    ipybox::core::redactor filled;
    CHECK_THROWS_AS(substitute_placeholders(json("${FOUND}/${MISSING}"),
                                            from({{"FOUND", "found-value"}}), filled),
                    missing_variables_error);
    CHECK(filled.redact("found-value") == "${FOUND}");
}

TEST_CASE("the workspace's path fills ${IPYBOX_WORKSPACE} and is no secret: never redacted") {
    ipybox::core::redactor filled;
    const auto result = substitute_placeholders(
        json::parse(R"({"args": ["${IPYBOX_WORKSPACE}/data", "${TOKEN}"]})"),
        from({{"IPYBOX_WORKSPACE", "/home/u/proj2"}, {"TOKEN", "tok-4711-abcd"}}), filled);
    CHECK(result["args"][0] == "/home/u/proj2/data");
    CHECK(filled.redact("/home/u/proj2/data and tok-4711-abcd") ==
          "/home/u/proj2/data and ${TOKEN}");  // the control: the token is redacted
}
