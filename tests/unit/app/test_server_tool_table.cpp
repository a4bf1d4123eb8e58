// The tools of `ipybox mcp` come from one table: tools/list, the argument check with its
// defaults and README.md's tool table are derived from the same entry, so they cannot disagree.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "server_tool_support.hpp"
#include "server_tool_table.hpp"
#include "test_paths.hpp"

using namespace ipybox;
using nlohmann::json;

namespace {

const app::server_tool& tool_named(const std::string& name) {
    for (const auto& tool : app::server_tool_table()) {
        if (tool.name == name) return tool;
    }
    throw std::runtime_error("no tool " + name);
}

// The rows of README.md's table under `header`.
std::vector<std::string> readme_tool_rows(const std::string& header = "| tool | what it does |") {
    std::ifstream readme(testing::source_dir() / "README.md");
    REQUIRE(readme);
    std::vector<std::string> rows;
    std::string line;
    bool inside = false;
    while (std::getline(readme, line)) {
        if (line == header) {
            inside = true;
            std::getline(readme, line);  // |---|---|
            continue;
        }
        if (!inside) continue;
        if (!line.starts_with("|")) break;
        rows.push_back(line);
    }
    return rows;
}

std::string refusal(const std::string& tool, const json& arguments) {
    try {
        app::checked_arguments(tool_named(tool), arguments);
    } catch (const app::detail::argument_error& e) {
        return e.what();
    }
    return "accepted";
}

}  // namespace

TEST_SUITE("app.server_tool_table") {
    TEST_CASE("README.md's tool table is the table's docs rows, in the table's order") {
        std::vector<std::string> expected;
        std::string block;  // what to paste into README.md when the table changed
        for (const auto& tool : app::server_tool_table()) {
            expected.push_back(app::docs_row(tool));
            block += expected.back() + "\n";
        }
        INFO("README.md's rows should read:\n", block);
        const auto rows = readme_tool_rows();
        REQUIRE(rows.size() == expected.size());
        for (std::size_t i = 0; i < rows.size(); ++i) CHECK(rows[i] == expected[i]);
    }

    TEST_CASE("README.md's table of the handle tools is their docs rows") {
        std::vector<std::string> expected;
        std::string block;
        for (const auto& tool : app::handle_tool_table()) {
            expected.push_back(app::docs_row(tool));
            block += expected.back() + "\n";
        }
        INFO("README.md's rows should read:\n", block);
        const auto rows = readme_tool_rows("| handle tool | what it does |");
        REQUIRE(rows.size() == expected.size());
        for (std::size_t i = 0; i < rows.size(); ++i) CHECK(rows[i] == expected[i]);
    }

    TEST_CASE("a docs row gives the signature with the defaults the check fills in") {
        const auto& execute = tool_named("execute_ipython_cell");
        CHECK(app::docs_row(execute).starts_with(
            "| `execute_ipython_cell(code, timeout=120, max_output_chars=5000, images=\"inline\")` "
            "| runs code"));
        const auto filled = app::checked_arguments(execute, {{"code", "1"}});
        CHECK(filled == json{{"code", "1"},
                             {"timeout", 120},
                             {"max_output_chars", 5000},
                             {"images", "inline"}});
        CHECK(app::docs_row(tool_named("install_package"))
                  .starts_with("| `install_package(package_name, scope=\"project\")` |"));
        CHECK(app::docs_row(tool_named("reset")).starts_with("| `reset()` |"));
    }

    TEST_CASE("the tools/list schema states the parameters' types, defaults, bounds and choices") {
        const auto execute = app::descriptor_of(tool_named("execute_ipython_cell"));
        const auto& schema = execute.input_schema;
        CHECK(schema["required"] == json{"code"});
        CHECK(schema["properties"]["timeout"]["type"] == "number");
        CHECK(schema["properties"]["timeout"]["default"] == 120);
        CHECK(schema["properties"]["timeout"]["exclusiveMinimum"] == 0);
        CHECK(schema["properties"]["max_output_chars"]["type"] == "integer");
        CHECK(schema["properties"]["max_output_chars"]["minimum"].dump() == "1");
        CHECK(execute.annotations["title"] == "Run Python code");

        const auto search = app::descriptor_of(tool_named("search_tools")).input_schema;
        CHECK(search["properties"]["limit"]["maximum"].dump() == "50");
        const auto install = app::descriptor_of(tool_named("install_package")).input_schema;
        CHECK(install["properties"]["scope"]["enum"] == json{"project", "user"});
        const auto reset = app::descriptor_of(tool_named("reset")).input_schema;
        CHECK(reset == json{{"type", "object"}, {"properties", json::object()}});
        const auto reg = app::descriptor_of(tool_named("register_mcp_server")).input_schema;
        CHECK(reg["required"] == json{"server_name", "server_params"});
        CHECK(reg["properties"]["server_params"]["additionalProperties"] == true);
    }

    TEST_CASE("the check refuses what the schema excludes, naming the argument") {
        CHECK(refusal("execute_ipython_cell", json::object()) ==
              "missing required argument \"code\"");
        CHECK(refusal("execute_ipython_cell", {{"code", 5}}) ==
              "argument \"code\" must be a string, not number");
        CHECK(refusal("execute_ipython_cell", {{"code", ""}, {"timeout", 0}}) ==
              "\"timeout\" must be a positive number of seconds");
        CHECK(refusal("execute_ipython_cell", {{"code", ""}, {"timeout", "5"}}) ==
              "\"timeout\" must be a positive number of seconds");
        CHECK(refusal("execute_ipython_cell", {{"code", ""}, {"max_output_chars", 10.5}}) ==
              "\"max_output_chars\" must be an integer of at least 1");
        CHECK(refusal("execute_ipython_cell", {{"code", ""}, {"max_output_chars", 0}}) ==
              "\"max_output_chars\" must be an integer of at least 1");
        CHECK(refusal("search_tools", {{"query", "x"}, {"limit", 51}}) ==
              "\"limit\" must be an integer from 1 to 50");
        CHECK(refusal("install_package", {{"package_name", "x"}, {"scope", "global"}}) ==
              "\"scope\" must be \"project\" or \"user\", not \"global\"");
        CHECK(refusal("register_mcp_server", {{"server_name", "x"}, {"server_params", "npx"}})
                  .starts_with("\"server_params\" must be an object such as"));
    }

    TEST_CASE("the check accepts the bounds themselves and turns null into the default") {
        CHECK(refusal("search_tools", {{"query", "x"}, {"limit", 50}}) == "accepted");
        CHECK(refusal("search_tools", {{"query", "x"}, {"limit", 1.0}}) == "accepted");
        CHECK(refusal("execute_ipython_cell", {{"code", ""}, {"max_output_chars", 1}}) ==
              "accepted");
        const auto checked = app::checked_arguments(
            tool_named("search_tools"), {{"query", "x"}, {"limit", nullptr}, {"other", 1}});
        CHECK(checked == json{{"query", "x"}, {"limit", 10}});
    }
}
