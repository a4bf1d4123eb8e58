// JSON Schema -> intermediate model at the edges the fuzz tier found (issue 25, round 3): the
// type says what the schema accepts, constraints stay where pydantic's Field() cannot go, and
// objects composed with allOf or closed without properties keep refusing what they refuse.
#include <doctest/doctest.h>

#include <string>

#include "ipybox/codegen/detail/ir_builder.hpp"
#include "ir_lookup.hpp"

using namespace ipybox::codegen;
using namespace ipybox::codegen::testing;
using namespace ipybox::codegen::detail;
using nlohmann::json;

namespace {

module_ir build(const json& properties, const json& defs = nullptr) {
    tool_descriptor tool;
    tool.name = "t";
    tool.input_schema = {{"type", "object"}, {"properties", properties}};
    if (!defs.is_null()) tool.input_schema["$defs"] = defs;
    return build_module_ir(tool);
}

const type_ref& type_of(const module_ir& module, const std::string& name) {
    return field(model(module, "Params"), name).type;
}

const json closed_empty = {
    {"type", "object"}, {"properties", json::object()}, {"additionalProperties", false}};

}  // namespace

TEST_CASE("a closed object without properties is an empty model that refuses every key") {
    const auto module = build({{"e", closed_empty}});
    const auto& e = type_of(module, "e");
    REQUIRE(e.kind == type_kind::model);
    CHECK(model(module, e.class_name).fields.empty());
    CHECK(model(module, e.class_name).extra == extra_fields::forbid);
    CHECK(module.server_only.empty());
    const json either = {
        {"anyOf",
         {{{"type", "object"}, {"properties", {{"n", {{"type", "string"}}}}}}, closed_empty}}};
    const auto in_union = build({{"u", either}});
    for (const auto& member : type_of(in_union, "u").members) {
        CHECK(member.kind == type_kind::model);  // not a Dict[str, Any] that takes anything
    }
}

TEST_CASE("an allOf member that closes its properties closes the merged model to its names") {
    const json defs = {{"closed",
                        {{"type", "object"},
                         {"properties", {{"x", {{"type", "boolean"}}}}},
                         {"additionalProperties", false}}}};
    const json open = {{"type", "object"},
                       {"properties", {{"b", {{"type", "integer"}}}}},
                       {"additionalProperties", true}};
    const auto module = build({{"a", {{"allOf", {{{"$ref", "#/$defs/closed"}}, open}}}}}, defs);
    const auto& merged = model(module, type_of(module, "a").class_name);
    CHECK(merged.extra == extra_fields::forbid);
    REQUIRE(merged.fields.size() == 1);  // `b` can never be valid: `closed` refuses it
    CHECK(merged.fields[0].json_name == "x");
}

TEST_CASE("a property two allOf members declare differently must satisfy both") {
    const json first = {
        {"properties",
         {{"p", {{"type", "string"}}}, {"q", {{"type", "number"}, {"maximum", 10}}}}}};
    const json second = {
        {"properties", {{"p", {{"type", "integer"}}}, {"q", {{"type", "integer"}}}}}};
    const auto module = build({{"a", {{"allOf", {first, second}}}}});
    const auto& merged = model(module, type_of(module, "a").class_name);
    REQUIRE(merged.fields.size() == 2);
    CHECK(merged.fields[0].type.kind == type_kind::any);  // no value is both: left to the server
    CHECK(merged.fields[1].type.kind == type_kind::integer);  // not the last member's alone
    CHECK(merged.fields[1].constraints.le == json(10));
    CHECK(module.server_only == std::set<std::string>{"allOf"});
    REQUIRE(module.notes.size() == 1);
    CHECK(module.notes[0].find("allOf") != std::string::npos);
}

TEST_CASE("an allOf of objects without properties is a map, and annotations alone drop out") {
    const json defs = {{"open", {{"type", "object"}, {"properties", json::object()}}},
                       {"short", {{"type", "string"}, {"maxLength", 3}}}};
    const json empty = {{"type", "object"}, {"properties", json::object()}};
    const auto module =
        build({{"o", {{"allOf", {{{"$ref", "#/$defs/open"}}, empty}}}},
               {"s", {{"allOf", {{{"$ref", "#/$defs/short"}}, {{"description", "d"}}}}}}},
              defs);
    CHECK(type_of(module, "o").kind == type_kind::dict);
    CHECK(type_of(module, "s").kind == type_kind::string);
    CHECK(module.server_only.empty());
}

TEST_CASE("constraints of union members, items and map values stay on their types") {
    const json either = {
        {"anyOf",
         {{{"type", "integer"}, {"minimum", 0}}, {{"type", "string"}, {"pattern", "^[A-Z]{2}$"}}}}};
    const json items = {{"type", "array"}, {"items", {{"type", "string"}, {"maxLength", 2}}}};
    const json values = {{"type", "object"},
                         {"additionalProperties", {{"type", "integer"}, {"maximum", 10}}}};
    const auto module = build({{"u", either}, {"l", items}, {"m", values}});
    const auto& u = type_of(module, "u");
    REQUIRE(u.members.size() == 2);
    CHECK(u.members[0].constraints.ge == json(0));
    CHECK(u.members[1].constraints.pattern == std::optional<std::string>("^[A-Z]{2}$"));
    CHECK(type_of(module, "l").members.at(0).constraints.max_length == 2U);
    CHECK(type_of(module, "m").members.at(0).constraints.le == json(10));
    CHECK(module.server_only.empty());
}

TEST_CASE("an int beside a float stays where the float bounds more strictly, alike ones merge") {
    const json bounded_float = {{"type", "number"}, {"maximum", 10}};
    const auto kept = build({{"p", {{"anyOf", {bounded_float, {{"type", "integer"}}}}}}});
    CHECK(type_of(kept, "p").members.size() == 2);
    const json bounded_int = {{"type", "integer"}, {"minimum", 1}};
    const auto dropped = build({{"p", {{"anyOf", {{{"type", "number"}}, bounded_int}}}}});
    CHECK(type_of(dropped, "p").kind == type_kind::number);
    const json short_text = {{"type", "string"}, {"maxLength", 1}};
    const auto any_text = build({{"p", {{"anyOf", {short_text, {{"type", "string"}}}}}}});
    CHECK(type_of(any_text, "p").kind == type_kind::string);
    CHECK(type_of(any_text, "p").constraints.empty());
}

TEST_CASE("enums and consts of non-integer numbers are Literals, arrays and objects Any") {
    const auto module = build({{"e", {{"enum", {-0.5, "a", 1e20}}}},
                               {"c", {{"const", 2.5}}},
                               {"o", {{"enum", {json::object(), 1}}}}});
    CHECK(type_of(module, "e").kind == type_kind::literal);
    CHECK(type_of(module, "e").literal_values == std::vector<json>{-0.5, "a", 1e20});
    CHECK(type_of(module, "c").literal_values == std::vector<json>{2.5});
    CHECK(type_of(module, "o").kind == type_kind::any);
    CHECK(module.server_only == std::set<std::string>{"enum"});
    REQUIRE(module.notes.size() == 1);
    CHECK(module.notes[0].starts_with("Params.o: "));
}

TEST_CASE("allOf members of scalars merge into one type with the stricter bounds") {
    const json defs = {{"n", {{"type", "number"}, {"maximum", 10}, {"minimum", 0}}}};
    const auto module = build(
        {{"i", {{"allOf", {{{"$ref", "#/$defs/n"}}, {{"type", "integer"}, {"maximum", 5}}}}}},
         {"s",
          {{"allOf",
            {{{"type", "string"}, {"format", "date"}}, {{"type", "string"}, {"maxLength", 4}}}}}},
         {"two_patterns",
          {{"allOf",
            {{{"type", "string"}, {"pattern", "a"}}, {{"type", "string"}, {"pattern", "b"}}}}}}},
        defs);
    const auto& i = model(module, "Params").fields.at(0);
    CHECK(i.type.kind == type_kind::integer);
    CHECK(i.constraints.le == json(5));
    CHECK(i.constraints.ge == json(0));
    CHECK(model(module, "Params").fields.at(1).constraints.max_length == 4U);
    CHECK(type_of(module, "two_patterns").kind == type_kind::any);
    CHECK(module.server_only == std::set<std::string>{"allOf"});
}

TEST_CASE("an allOf that requires what a member forbids takes no value: a union leaves it out") {
    const json defs = {
        {"needs_n",
         {{"type", "object"}, {"properties", {{"n", {{"type", "number"}}}}}, {"required", {"n"}}}}};
    const json contradiction = {{"allOf", {{{"$ref", "#/$defs/needs_n"}}, closed_empty}}};
    const auto in_union = build({{"p", {{"anyOf", {contradiction, {{"type", "string"}}}}}}}, defs);
    CHECK(type_of(in_union, "p").kind == type_kind::string);
    CHECK(in_union.server_only.empty());
    CHECK(in_union.notes.empty());
    const auto alone = build({{"q", contradiction}}, defs);
    CHECK(type_of(alone, "q").kind == type_kind::any);
    CHECK(alone.server_only == std::set<std::string>{"allOf"});
    REQUIRE(alone.notes.size() == 1);
}

TEST_CASE("a $ref to a model the definition marks nullable (OpenAPI) admits null") {
    const json defs = {
        {"node",
         {{"type", "object"}, {"properties", {{"a", {{"type", "null"}}}}}, {"nullable", true}}}};
    const auto module = build({{"p", {{"$ref", "#/$defs/node"}}}}, defs);
    CHECK(type_of(module, "p").kind == type_kind::model);
    CHECK(type_of(module, "p").nullable);
}
