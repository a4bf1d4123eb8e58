// generate_package: the package as a whole, tool descriptor parsing, and generation speed.
#include "ipybox/codegen/generator.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "ipybox/codegen/naming.hpp"

using namespace ipybox::codegen;
using nlohmann::json;

namespace {

tool_descriptor make_tool(const std::string& name, const json& input = {{"type", "object"}},
                          const json& output = nullptr) {
    tool_descriptor tool;
    tool.name = name;
    tool.description = "Tool " + name;
    tool.input_schema = input;
    tool.output_schema = output;
    return tool;
}

const generated_file& file(const generated_package& package, const std::string& path) {
    for (const auto& f : package.files) {
        if (f.relative_path == path) return f;
    }
    FAIL("no file " << path);
    throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("generates __init__.py first and one module per tool in server order") {
    const auto package = generate_package("srv", {make_tool("b-tool"), make_tool("a")});
    REQUIRE(package.files.size() == 3);
    CHECK(package.files[0].relative_path == "srv/__init__.py");
    CHECK(package.files[1].relative_path == "srv/b_tool.py");
    CHECK(package.files[2].relative_path == "srv/a.py");
    REQUIRE(package.modules.size() == 2);
    CHECK(package.modules[0].tool_name == "b-tool");
    CHECK(package.modules[0].module_name == "b_tool");
    CHECK(file(package, "srv/__init__.py").content.find("'b_tool': 'b-tool',") !=
          std::string::npos);
}

TEST_CASE("a tool named __init__ never overwrites the package __init__.py") {
    const auto package = generate_package("srv", {make_tool("__init__"), make_tool("__INIT__")});
    CHECK(package.files.size() == 3);
    CHECK(package.files[1].relative_path == "srv/init.py");
    CHECK(package.files[2].relative_path == "srv/init_2.py");
}

TEST_CASE("refuses an invalid server name before generating anything") {
    CHECK_THROWS_AS(generate_package("../x", {make_tool("t")}), invalid_server_name);
    CHECK_THROWS_AS(generate_package("", {}), invalid_server_name);
}

TEST_CASE("output is deterministic") {
    const std::vector<tool_descriptor> tools{
        make_tool("t", {{"type", "object"},
                        {"properties", {{"z", {{"type", "string"}}}, {"a", {{"enum", {"x"}}}}}}})};
    const auto first = generate_package("srv", tools);
    const auto second = generate_package("srv", tools);
    REQUIRE(first.files.size() == second.files.size());
    for (std::size_t i = 0; i < first.files.size(); ++i)
        CHECK(first.files[i].content == second.files[i].content);
}

TEST_CASE("tools with an object output schema return Result, all others TextResult") {
    const json out = {{"type", "object"}, {"properties", {{"a", {{"type", "integer"}}}}}};
    const auto package =
        generate_package("srv", {make_tool("s", {{"type", "object"}}, out), make_tool("t"),
                                 make_tool("e", {{"type", "object"}}, json::object())});
    const auto& structured = file(package, "srv/s.py").content;
    CHECK(structured.find("def run(params: Params) -> Result:") != std::string::npos);
    CHECK(structured.find("return Result.from_structured(output)") != std::string::npos);
    CHECK(structured.find("TextResult") == std::string::npos);
    for (const char* path : {"srv/t.py", "srv/e.py"}) {
        const auto& text = file(package, path).content;
        CHECK(text.find("def run(params: Params) -> TextResult:") != std::string::npos);
        CHECK(text.find("class Result") == std::string::npos);
    }
}

TEST_CASE("server-supplied text never appears unescaped in any generated file") {
    // The Python tests prove the stronger property (tests/python/generated_audit.py): importing
    // the hostile golden modules executes nothing but literals.
    const std::string payload =
        "x\"\"\"\n__import__('os').system('x')\n'''\r\n__import__('os')\xe2\x80\xa8";
    const json input = {{"type", "object"},
                        {"description", payload},
                        {"properties",
                         {{payload,
                           {{"type", "string"},
                            {"description", payload},
                            {"default", payload},
                            {"pattern", payload}}},
                          {"e", {{"enum", {payload}}}},
                          {"c", {{"const", payload}}}}}};
    auto tool = make_tool(payload, input, input);
    tool.description = payload;
    tool.title = payload;
    const auto package = generate_package("srv", {tool});
    for (const auto& f : package.files) {
        INFO(f.relative_path);
        CHECK(f.content.find(payload) == std::string::npos);
        CHECK(f.content.find("\"\"\"\n__import__") == std::string::npos);
        CHECK(f.content.find('\r') == std::string::npos);
        CHECK(f.content.find('\0') == std::string::npos);
        CHECK(f.content.find("\xe2\x80\xa8") == std::string::npos);
    }
}

TEST_CASE("parses tools/list entries, with annotations.title as the title fallback") {
    const auto tool = parse_tool_descriptor(json::parse(
        R"({"name": "t", "description": "d", "annotations": {"title": "T"}, "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object"}})"));
    CHECK(tool.name == "t");
    CHECK(tool.title == std::optional<std::string>("T"));
    CHECK(tool.description == "d");
    CHECK(tool.output_schema == json{{"type", "object"}});
    const auto bare = parse_tool_descriptor(json{{"name", "b"}});
    CHECK(bare.input_schema == json::object());
    CHECK(bare.output_schema.is_null());
    CHECK_FALSE(bare.title.has_value());
}

TEST_CASE("refuses tool descriptors without a name, naming the entry") {
    CHECK_THROWS_AS(parse_tool_descriptor(json{{"description", "x"}}), std::invalid_argument);
    CHECK_THROWS_AS(parse_tool_descriptor(json::array()), std::invalid_argument);
    try {
        parse_tool_list(json{{"tools", {{{"name", "ok"}}, {{"name", 5}}}}});
        FAIL("expected an exception");
    } catch (const std::invalid_argument& error) {
        CHECK(std::string(error.what()).starts_with("tool 1:"));
    }
    CHECK(parse_tool_list(json{{"tools", {{{"name", "a"}}}}}).size() == 1);
}

TEST_CASE("generates a synthetic 500-tool server quickly (time reported, not asserted)") {
    const json input = json::parse(R"({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Search query", "minLength": 1},
            "per-page": {"type": "integer", "minimum": 1, "maximum": 100, "default": 30},
            "sort": {"type": "string", "enum": ["stars", "forks", "updated"]},
            "filter": {"$ref": "#/$defs/Filter"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "since": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]}
        },
        "required": ["query"],
        "$defs": {"Filter": {"type": "object", "properties": {"owner": {"type": "string"},
                                                              "archived": {"type": "boolean"}}}}
    })");
    const json output = json::parse(R"({
        "type": "object",
        "properties": {
            "total": {"type": "integer"},
            "items": {"type": "array", "items": {"type": "object", "properties": {
                "id": {"type": "integer"}, "name": {"type": "string"}}}}
        }
    })");
    std::vector<tool_descriptor> tools;
    for (int i = 0; i < 500; ++i) {
        const std::string n = std::to_string(i);
        tool_descriptor tool = make_tool("tool-" + n, input, i % 2 == 0 ? output : json());
        tool.description = "Synthetic tool number " + n + ".\n\nIt does a thing with the query.";
        tools.push_back(std::move(tool));
    }
    const auto start = std::chrono::steady_clock::now();
    const auto package = generate_package("synthetic", tools);
    const std::chrono::duration<double, std::milli> elapsed =
        std::chrono::steady_clock::now() - start;
    std::size_t bytes = 0;
    for (const auto& f : package.files) bytes += f.content.size();
    MESSAGE("generated 500 tools (" << package.files.size() << " files, " << bytes << " bytes) in "
                                    << elapsed.count() << " ms");
    CHECK(package.files.size() == 501);
}
