// The three manglers (module classes, model fields, enum members): names that collide once
// mangled stay distinct, whatever the namespace already holds; and the keywords Params leaves
// to the server.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "ipybox/codegen/detail/identifiers.hpp"
#include "ipybox/codegen/detail/ir_builder.hpp"
#include "ipybox/codegen/naming.hpp"
#include "ipybox/core/python_names.hpp"
#include "ir_lookup.hpp"

using namespace ipybox::codegen;
using namespace ipybox::codegen::testing;
using namespace ipybox::codegen::detail;
using nlohmann::json;

namespace {

module_ir build(const json& properties) {
    tool_descriptor tool;
    tool.name = "t";
    tool.input_schema = {{"type", "object"}, {"properties", properties}};
    return build_module_ir(tool);
}

std::string attribute_of(const model_def& def, const std::string& json_name) {
    return field(def, json_name).attribute_name;
}

// Every name distinct, none a keyword or reserved in its namespace.
void check_namespace(const std::vector<std::string>& names, const std::set<std::string>& reserved) {
    const std::set<std::string> unique(names.begin(), names.end());
    CHECK(unique.size() == names.size());
    for (const auto& name : names) {
        CHECK_MESSAGE(!ipybox::core::is_python_keyword(name), name);
        CHECK_MESSAGE(!reserved.contains(name), name);
        CHECK_MESSAGE(ipybox::core::is_ascii_identifier(name), name);
    }
}

const json colliding = {{"datetime", {{"type", "string"}}}, {"datetime_", {{"type", "integer"}}},
                        {"int", {{"type", "integer"}}},     {"int_", {{"type", "string"}}},
                        {"class", {{"type", "boolean"}}},   {"class_", {{"type", "string"}}},
                        {"class__2", {{"type", "number"}}}};

}  // namespace

TEST_CASE("field names that mangle into each other stay distinct, exact names kept") {
    const auto module = build(colliding);
    const auto& params = model(module, "Params");
    std::vector<std::string> names;
    for (const auto& field : params.fields) names.push_back(field.attribute_name);
    check_namespace(names, reserved_attribute_names());
    CHECK(attribute_of(params, "datetime_") == "datetime_");
    CHECK(attribute_of(params, "int_") == "int_");
    CHECK(attribute_of(params, "class_") == "class_");
    CHECK(attribute_of(params, "class__2") == "class__2");
    CHECK(attribute_of(params, "class") == "class__3");
    CHECK(attribute_of(params, "datetime") == "datetime__2");
}

TEST_CASE("nested models named alike get distinct classes whose fields are mangled alike") {
    const auto module =
        build({{"int", {{"type", "object"}, {"properties", colliding}}},
               {"Int", {{"type", "object"}, {"properties", {{"Int", {{"type", "string"}}}}}}},
               {"int_", {{"type", "object"}, {"properties", {{"a", {{"type", "string"}}}}}}}});
    std::vector<std::string> classes;
    for (const auto& item : module.classes) {
        std::visit([&](const auto& def) { classes.push_back(def.class_name); }, item);
    }
    check_namespace(classes, {"ToolModel", "Field", "Enum", "TextResult", "call_tool"});
    const auto& params = model(module, "Params");
    std::vector<std::string> names;
    for (const auto& field : params.fields) names.push_back(field.attribute_name);
    check_namespace(names, reserved_attribute_names());
    CHECK(attribute_of(params, "Int") == "Int_");  // the class Int lives in the module
    CHECK(attribute_of(model(module, "Int"), "Int") == "Int_");
    CHECK(attribute_of(model(module, "Int2"), "class") == "class__3");
}

TEST_CASE("enum members that mangle into each other or into Enum's own names stay distinct") {
    const auto module = build({{"mode",
                                {{"enum",
                                  {"class", "class_", "mro", "mro_", "name", "value", "value_2",
                                   "a b", "a_b", "a_b_2"}}}}});
    const auto& def = std::get<enum_def>(module.classes.at(0));
    std::vector<std::string> names;
    std::set<std::string> values;
    for (const auto& member : def.members) {
        names.push_back(member.name);
        values.insert(member.value);
    }
    check_namespace(names, reserved_enum_member_names());
    CHECK(values.size() == def.members.size());
    CHECK(def.members.at(1).name == "class_");
    CHECK(def.members.at(0).name == "class__2");
    CHECK(def.members.at(8).name == "a_b");
    CHECK(def.members.at(7).name == "a_b_3");
}

TEST_CASE("a mangled name never lands on a name its namespace reserves") {
    CHECK(assign_unique({"x_", "x_"}, {"x", "y"}, {"x_", "x__2"}, "_") ==
          std::vector<std::string>{"x__3", "x__4"});
}

TEST_CASE("keywords Params cannot check are listed as left to the server, the rest are not") {
    const auto checked = build({{"n", {{"type", "integer"}, {"minimum", 1}}},
                                {"s", {{"type", "string"}, {"pattern", "^a"}}},
                                {"l", {{"type", "array"}, {"maxItems", 2}}}});
    CHECK(checked.server_only.empty());
    const auto unchecked = build(
        {{"tags",
          {{"type", "array"},
           {"uniqueItems", true},
           {"items", {{"type", "string"}, {"minLength", 2}}}}},
         {"either", {{"anyOf", {{{"type", "integer"}, {"maximum", 3}}, {{"type", "string"}}}}}},
         {"shape",
          {{"type", "object"},
           {"properties", {{"k", {{"type", "string"}}}}},
           {"if", json::object()},
           {"minProperties", 1}}}});
    CHECK(unchecked.server_only == std::set<std::string>{"if", "minProperties", "uniqueItems"});
}
