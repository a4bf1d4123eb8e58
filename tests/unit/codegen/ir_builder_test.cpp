// JSON Schema -> intermediate model: the mapping rules, one schema feature at a time.
#include "ipybox/codegen/detail/ir_builder.hpp"

#include <doctest/doctest.h>

#include <string>

#include "ir_lookup.hpp"

using namespace ipybox::codegen;
using namespace ipybox::codegen::testing;
using namespace ipybox::codegen::detail;
using nlohmann::json;

namespace {

module_ir build(const json& input, const json& output = nullptr) {
    tool_descriptor tool;
    tool.name = "t";
    tool.input_schema = input;
    tool.output_schema = output;
    return build_module_ir(tool);
}

json object_with(const json& properties, const json& required = json::array()) {
    return {{"type", "object"}, {"properties", properties}, {"required", required}};
}

// The type of property `name` of a one-property input schema.
type_ref type_of(const json& property_schema) {
    const auto module = build(object_with({{"p", property_schema}}));
    return field(model(module, "Params"), "p").type;
}

}  // namespace

TEST_CASE("maps JSON types to Python types, every string format staying str") {
    CHECK(type_of({{"type", "string"}}).kind == type_kind::string);
    CHECK(type_of({{"type", "string"}, {"format", "uri"}}).kind == type_kind::string);
    CHECK(type_of({{"type", "string"}, {"format", "date-time"}}).kind == type_kind::string);
    CHECK(type_of({{"type", "string"}, {"format", "date"}}).kind == type_kind::string);
    CHECK(type_of({{"type", "string"}, {"format", "time"}}).kind == type_kind::string);
    CHECK(type_of({{"type", "integer"}}).kind == type_kind::integer);
    CHECK(type_of({{"type", "number"}}).kind == type_kind::number);
    CHECK(type_of({{"type", "boolean"}}).kind == type_kind::boolean);
    CHECK(type_of(json::object()).kind == type_kind::any);
    CHECK(type_of(true).kind == type_kind::any);
    const auto list = type_of({{"type", "array"}, {"items", {{"type", "integer"}}}});
    REQUIRE(list.kind == type_kind::list);
    CHECK(list.members.at(0).kind == type_kind::integer);
    const auto dict = type_of({{"type", "object"}, {"additionalProperties", {{"type", "string"}}}});
    REQUIRE(dict.kind == type_kind::dict);
    CHECK(dict.members.at(0).kind == type_kind::string);
    CHECK(type_of({{"type", "object"}}).members.at(0).kind == type_kind::any);
}

TEST_CASE("null in a type array, an anyOf or OpenAPI nullable makes the type nullable") {
    CHECK(type_of({{"type", {"string", "null"}}}).nullable);
    CHECK(type_of({{"anyOf", {{{"type", "integer"}}, {{"type", "null"}}}}}).nullable);
    CHECK(type_of({{"type", "string"}, {"nullable", true}}).nullable);
    CHECK_FALSE(type_of({{"type", "string"}}).nullable);
}

TEST_CASE("unions drop duplicates and int beside float, and merge literals") {
    const auto both = type_of({{"type", {"integer", "number"}}});
    CHECK(both.kind == type_kind::number);
    const auto same = type_of({{"anyOf", {{{"type", "string"}}, {{"type", "string"}}}}});
    CHECK(same.kind == type_kind::string);
    const auto mixed = type_of({{"anyOf", {{{"type", "string"}}, {{"type", "integer"}}}}});
    REQUIRE(mixed.kind == type_kind::union_of);
    CHECK(mixed.members.size() == 2);
    const auto literals = type_of({{"anyOf", {{{"const", "a"}}, {{"enum", {1, 2}}}}}});
    REQUIRE(literals.kind == type_kind::literal);
    CHECK(literals.literal_values == std::vector<json>{"a", 1, 2});
    CHECK(type_of({{"anyOf", {{{"type", "string"}}, json::object()}}}).kind == type_kind::any);
}

TEST_CASE("string enums become enum classes with sanitised members, other enums Literal") {
    const auto module =
        build(object_with({{"sort", {{"enum", {"stars", "help-wanted", "class", nullptr}}}}}));
    const auto& sort = field(model(module, "Params"), "sort").type;
    CHECK(sort.kind == type_kind::enumeration);
    CHECK(sort.nullable);
    const auto& def = enumeration(module, "Sort");
    REQUIRE(def.members.size() == 3);
    CHECK(def.members[1].name == "help_wanted");
    CHECK(def.members[1].value == "help-wanted");
    CHECK(def.members[2].name == "class_");
    const auto ints = type_of({{"enum", {1, 2, 3}}});
    CHECK(ints.kind == type_kind::literal);
    const auto numbers = type_of({{"enum", {1.5, 2}}});
    CHECK(numbers.kind == type_kind::literal);
    CHECK(numbers.literal_values == std::vector<json>{1.5, 2});
    CHECK(type_of({{"enum", {json::object()}}}).kind == type_kind::any);
}

TEST_CASE("const becomes a one-value Literal") {
    const auto type = type_of({{"const", "fast"}});
    REQUIRE(type.kind == type_kind::literal);
    CHECK(type.literal_values == std::vector<json>{"fast"});
    CHECK(type_of({{"const", nullptr}}).kind == type_kind::none);
    CHECK(type_of({{"const", {{"a", 1}}}}).kind == type_kind::any);
}

TEST_CASE("required, defaults and descriptions come from the property") {
    const auto module =
        build(object_with({{"a", {{"type", "integer"}, {"default", 3}, {"description", "A"}}},
                           {"b", {{"type", "string"}}}},
                          {"b"}));
    const auto& params = model(module, "Params");
    CHECK_FALSE(field(params, "a").required);
    CHECK(field(params, "a").default_value == json(3));
    CHECK(field(params, "a").description == "A");
    CHECK(field(params, "b").required);
}

TEST_CASE("$ref targets become one class named after their $defs or definitions key") {
    const json input = {{"type", "object"},
                        {"properties",
                         {{"a", {{"$ref", "#/$defs/Inner"}}},
                          {"b", {{"$ref", "#/$defs/Inner"}}},
                          {"c", {{"$ref", "#/definitions/Kind"}}}}},
                        {"$defs", {{"Inner", object_with({{"x", {{"type", "integer"}}}})}}},
                        {"definitions", {{"Kind", {{"type", "string"}, {"enum", {"a", "b"}}}}}}};
    const auto module = build(input);
    CHECK(module.classes.size() == 3);  // Inner, Kind, Params
    CHECK(field(model(module, "Params"), "a").type.class_name == "Inner");
    CHECK(field(model(module, "Params"), "b").type.class_name == "Inner");
    CHECK(field(model(module, "Params"), "c").type.class_name == "Kind");
}

TEST_CASE("recursive references point back to the class being built") {
    const json input = {
        {"type", "object"},
        {"properties", {{"root", {{"$ref", "#/$defs/Node"}}}, {"parent", {{"$ref", "#"}}}}},
        {"$defs",
         {{"Node", object_with({{"children",
                                 {{"type", "array"}, {"items", {{"$ref", "#/$defs/Node"}}}}}})}}}};
    const auto module = build(input);
    CHECK(field(model(module, "Node"), "children").type.members.at(0).class_name == "Node");
    CHECK(field(model(module, "Params"), "parent").type.class_name == "Params");
}

TEST_CASE("dangling, remote and looping references degrade to Any") {
    const json input = {
        {"type", "object"},
        {"properties",
         {{"d", {{"$ref", "#/$defs/Missing"}}},
          {"r", {{"$ref", "https://x/y.json"}}},
          {"l", {{"$ref", "#/$defs/A"}}}}},
        {"$defs", {{"A", {{"$ref", "#/$defs/B"}}}, {"B", {{"$ref", "#/$defs/A"}}}}}};
    const auto module = build(input);
    const auto& params = model(module, "Params");
    CHECK(field(params, "d").type.kind == type_kind::any);
    CHECK(field(params, "r").type.kind == type_kind::any);
    CHECK(field(params, "l").type.kind == type_kind::any);
}

TEST_CASE("allOf with one member is that member, with several a merged model") {
    const json input = {
        {"type", "object"},
        {"properties",
         {{"one", {{"allOf", {{{"$ref", "#/$defs/X"}}}}}},
          {"many",
           {{"allOf",
             {{{"$ref", "#/$defs/X"}}, object_with({{"y", {{"type", "string"}}}}, {"y"})}}}}}},
        {"$defs", {{"X", object_with({{"x", {{"type", "integer"}}}}, {"x"})}}}};
    const auto module = build(input);
    CHECK(field(model(module, "Params"), "one").type.class_name == "X");
    const auto& merged = model(module, field(model(module, "Params"), "many").type.class_name);
    CHECK(merged.fields.size() == 2);
    CHECK(field(merged, "x").required);
    CHECK(field(merged, "y").required);
}

TEST_CASE("input models forbid unknown fields unless additionalProperties allows them") {
    CHECK(model(build(object_with({})), "Params").extra == extra_fields::forbid);
    json open = object_with({});
    open["additionalProperties"] = true;
    CHECK(model(build(open), "Params").extra == extra_fields::allow);
    open["additionalProperties"] = json{{"type", "integer"}};
    CHECK(model(build(open), "Params").extra == extra_fields::allow);
    CHECK(model(build({{"type", "string"}}), "Params").extra == extra_fields::allow);
}

TEST_CASE("a Result model exists only for an output schema with properties, and allows extras") {
    CHECK_FALSE(build(object_with({})).has_result);
    CHECK_FALSE(build(object_with({}), json::object()).has_result);
    CHECK_FALSE(build(object_with({}), {{"type", "object"}}).has_result);
    const auto module = build(object_with({}), object_with({{"a", {{"type", "integer"}}}}));
    CHECK(module.has_result);
    CHECK(model(module, "Result").extra == extra_fields::allow);
}

TEST_CASE("input and output classes of the same name get distinct names") {
    const json item = object_with({{"x", {{"type", "integer"}}}});
    const json side = {{"type", "object"},
                       {"properties", {{"item", {{"$ref", "#/$defs/Item"}}}}},
                       {"$defs", {{"Item", item}}}};
    const auto module = build(side, side);
    CHECK(field(model(module, "Params"), "item").type.class_name == "Item");
    CHECK(field(model(module, "Result"), "item").type.class_name == "Item2");
}

TEST_CASE("$defs named like module names never shadow them") {
    const json defs = {{"Params", object_with({{"x", {{"type", "integer"}}}})},
                       {"Field", object_with({{"y", {{"type", "integer"}}}})}};
    const json input = {
        {"type", "object"},
        {"properties", {{"a", {{"$ref", "#/$defs/Params"}}}, {"b", {{"$ref", "#/$defs/Field"}}}}},
        {"$defs", defs}};
    const auto module = build(input);
    CHECK(field(model(module, "Params"), "a").type.class_name == "Params2");
    CHECK(field(model(module, "Params"), "b").type.class_name == "Field2");
}

TEST_CASE("maps numeric, string and array constraints, including draft-4 exclusive flags") {
    const auto module = build(object_with({
        {"n", {{"type", "number"}, {"minimum", 1}, {"exclusiveMaximum", 10}, {"multipleOf", 0.5}}},
        {"d4", {{"type", "integer"}, {"minimum", 0}, {"exclusiveMinimum", true}}},
        {"s", {{"type", "string"}, {"minLength", 1}, {"maxLength", 5}, {"pattern", "^a"}}},
        {"l", {{"type", "array"}, {"minItems", 1}, {"maxItems", 3}}},
        {"opt", {{"anyOf", {{{"type", "integer"}, {"minimum", 2}}, {{"type", "null"}}}}}},
        {"u", {{"anyOf", {{{"type", "integer"}}, {{"type", "string"}}}}, {"minimum", 2}}},
    }));
    const auto& params = model(module, "Params");
    const auto& n = field(params, "n").constraints;
    CHECK(n.ge == json(1));
    CHECK(n.lt == json(10));
    CHECK(n.multiple_of == json(0.5));
    CHECK(field(params, "d4").constraints.gt == json(0));
    CHECK_FALSE(field(params, "d4").constraints.ge.has_value());
    CHECK(field(params, "s").constraints.min_length == 1u);
    CHECK(field(params, "s").constraints.pattern == std::optional<std::string>("^a"));
    CHECK(field(params, "l").constraints.max_items == 3u);
    CHECK(field(params, "opt").constraints.ge == json(2));
    CHECK_FALSE(field(params, "u").constraints.ge.has_value());
}

TEST_CASE("attribute names avoid keywords, pydantic attributes and the module's class names") {
    const auto module = build(object_with({{"from", {{"type", "string"}}},
                                           {"json", {{"type", "string"}}},
                                           {"Sort", {{"type", "string"}}},
                                           {"sort", {{"enum", {"a"}}}},
                                           {"ok_name", {{"type", "string"}}}}));
    const auto& params = model(module, "Params");
    CHECK(field(params, "from").attribute_name == "from_");
    CHECK(field(params, "json").attribute_name == "json_");
    CHECK(field(params, "Sort").attribute_name == "Sort_");
    CHECK(field(params, "ok_name").attribute_name == "ok_name");
}

TEST_CASE("deeply nested schemas stop at the depth limit instead of exhausting the stack") {
    json schema = {{"type", "integer"}};
    for (int i = 0; i < 2000; ++i) schema = {{"type", "array"}, {"items", std::move(schema)}};
    type_ref type = type_of(schema);
    int depth = 0;
    while (type.kind == type_kind::list) {
        type = type.members.at(0);
        ++depth;
    }
    CHECK(type.kind == type_kind::any);
    CHECK(depth <= max_schema_depth);
}

// Defect classes of issue 12 that the IR decides (the runtime ones are pinned in tests/python).

TEST_CASE("classes named None, True or False by PascalCase get a suffix instead") {
    const auto module =
        build(object_with({{"none", object_with({{"a", {{"type", "string"}}}})},
                           {"p", {{"title", "true"}, {"enum", json::array({"a", "b"})}}},
                           {"q", {{"title", "False"}, {"enum", json::array({"c"})}}}}));
    CHECK(field(model(module, "Params"), "none").type.class_name == "NoneModel");
    CHECK(field(model(module, "Params"), "p").type.class_name == "TrueChoice");
    CHECK(field(model(module, "Params"), "q").type.class_name == "FalseChoice");
}

TEST_CASE("attribute names avoid every model attribute of both pydantic majors, mro included") {
    for (const char* name : {"mro", "register", "model_validate_strings", "from_orm", "Config",
                             "from_arguments", "to_arguments", "parse_raw"}) {
        const auto module = build(object_with({{name, {{"type", "string"}}}}));
        CHECK(field(model(module, "Params"), name).attribute_name == std::string(name) + "_");
    }
    const auto dunder = build(object_with({{"__pydantic_self__", {{"type", "string"}}}}));
    CHECK(field(model(dunder, "Params"), "__pydantic_self__").attribute_name == "pydantic_self__");
}

TEST_CASE("date-time, date and time keep their pattern as strings") {
    const auto module = build(
        object_with({{"p", {{"type", "string"}, {"format", "date-time"}, {"pattern", "Z$"}}}}));
    const auto& p = field(model(module, "Params"), "p");
    CHECK(p.type.kind == type_kind::string);
    CHECK(p.constraints.pattern == std::optional<std::string>("Z$"));
}

TEST_CASE("enums that mix 1 with true or 0 with false stay Literal, which the runtime checks") {
    CHECK(type_of({{"enum", json::array({1, true})}}).kind == type_kind::literal);
    CHECK(type_of({{"enum", json::array({0, false, "x"})}}).kind == type_kind::literal);
    CHECK(type_of({{"anyOf", json::array({json{{"const", 1}}, json{{"const", true}}})}})
              .literal_values == std::vector<json>{1, true});
    const auto module = build(object_with({{"p", {{"enum", json::array({1, true})}}}}));
    CHECK(module.notes.empty());
    CHECK(module.server_only.empty());
}

TEST_CASE(
    "item counts of lists of lists stay in the annotation, off the Field() pydantic 1 "
    "would apply to the inner lists") {
    const json inner = {{"type", "array"}, {"items", {{"type", "integer"}}}};
    const auto nested = build(object_with(
        {{"p", {{"type", "array"}, {"items", inner}, {"minItems", 2}, {"maxItems", 1}}}}));
    const auto& p = field(model(nested, "Params"), "p");
    CHECK_FALSE(p.constraints.min_items);
    CHECK_FALSE(p.constraints.max_items);
    CHECK(p.type.constraints.min_items == 2U);
    CHECK(p.type.constraints.max_items == 1U);
    const json either = {{"anyOf", json::array({inner, json{{"type", "string"}}})}};
    const auto in_union =
        build(object_with({{"p", {{"type", "array"}, {"items", either}, {"maxItems", 1}}}}));
    CHECK_FALSE(field(model(in_union, "Params"), "p").constraints.max_items);
    CHECK(field(model(in_union, "Params"), "p").type.constraints.max_items == 1U);
    const auto flat = build(object_with({{"p", inner}}));
    const auto counted = build(object_with({{"p", {{"type", "array"}, {"maxItems", 1}}}}));
    CHECK(field(model(counted, "Params"), "p").constraints.max_items == 1U);
    CHECK(field(model(counted, "Params"), "p").type.constraints.empty());
    CHECK_FALSE(field(model(flat, "Params"), "p").constraints.max_items);
    CHECK(nested.server_only.empty());
}

TEST_CASE("lists and maps of nulls keep None items, which the runtime hides from pydantic 1") {
    const json nulls = {{"type", "array"}, {"items", {{"type", "null"}}}};
    const auto module = build(object_with({{"p", nulls}}));
    CHECK(field(model(module, "Params"), "p").type.members.at(0).kind == type_kind::none);
    CHECK(module.notes.empty());
    CHECK(module.server_only.empty());
    const json map = {{"type", "object"}, {"additionalProperties", {{"type", "null"}}}};
    CHECK(type_of(map).members.at(0).kind == type_kind::none);
}
