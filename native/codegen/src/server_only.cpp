// Which keywords of the input schema Params leaves to the server. Every subschema the builder
// reads passes through note_schema; a constraint keyword counts as checked only where the type
// built from that subschema carries it (note_applied: in a Field() call or an Annotated
// Constraints()), and keywords the builder never reads are listed outright.
#include <array>
#include <string_view>

#include "module_builder.hpp"

namespace ipybox::codegen::detail {
namespace {

using nlohmann::json;

// Validation keywords the generated models never check.
constexpr std::array<std::string_view, 20> never_checked{"not",
                                                         "if",
                                                         "then",
                                                         "else",
                                                         "dependentSchemas",
                                                         "dependentRequired",
                                                         "dependencies",
                                                         "minProperties",
                                                         "maxProperties",
                                                         "propertyNames",
                                                         "patternProperties",
                                                         "contains",
                                                         "minContains",
                                                         "maxContains",
                                                         "prefixItems",
                                                         "unevaluatedProperties",
                                                         "unevaluatedItems",
                                                         "additionalItems",
                                                         "$dynamicRef",
                                                         "$recursiveRef"};

// Keywords that become Field() or Constraints() arguments (ir_types.cpp).
constexpr std::array<std::string_view, 10> constraint_keywords{
    "minimum",   "maximum",   "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "pattern",          "minItems",         "maxItems"};

std::vector<std::string> applied_keywords(const field_constraints& c) {
    std::vector<std::string> keywords;
    const auto add = [&keywords](bool present, const char* keyword) {
        if (present) keywords.emplace_back(keyword);
    };
    // ge/gt and le/lt come from minimum/exclusiveMinimum and maximum/exclusiveMaximum, in
    // either draft's spelling.
    add(c.ge.has_value() || c.gt.has_value(), "minimum");
    add(c.ge.has_value() || c.gt.has_value(), "exclusiveMinimum");
    add(c.le.has_value() || c.lt.has_value(), "maximum");
    add(c.le.has_value() || c.lt.has_value(), "exclusiveMaximum");
    add(c.multiple_of.has_value(), "multipleOf");
    add(c.min_length.has_value(), "minLength");
    add(c.max_length.has_value(), "maxLength");
    add(c.pattern.has_value(), "pattern");
    add(c.min_items.has_value(), "minItems");
    add(c.max_items.has_value(), "maxItems");
    return keywords;
}

}  // namespace

void module_builder::note_schema(const json& schema) {
    if (doc_ == nullptr || doc_->side != schema_side::input || !schema.is_object()) return;
    for (const auto keyword : never_checked) {
        if (schema.contains(keyword)) note_server_only(std::string(keyword));
    }
    if (const auto it = schema.find("uniqueItems"); it != schema.end() && *it == json(true)) {
        note_server_only("uniqueItems");
    }
    if (const auto it = schema.find("items"); it != schema.end() && it->is_array()) {
        note_server_only("items");
    }
    if (const auto it = schema.find("oneOf");
        it != schema.end() && it->is_array() && it->size() > 1) {
        note_server_only("oneOf");  // taken as anyOf: a value matching two alternatives passes
    }
    for (const auto keyword : constraint_keywords) {
        if (schema.contains(keyword)) constraints_seen_.emplace(&schema, std::string(keyword));
    }
}

void module_builder::note_applied(const json& source, const field_constraints& constraints) {
    if (doc_ == nullptr || doc_->side != schema_side::input) return;
    for (auto& keyword : applied_keywords(constraints)) {
        constraints_applied_.emplace(&source, std::move(keyword));
    }
}

void module_builder::note_server_only(const std::string& keyword) {
    module_.server_only.insert(keyword);
}

void module_builder::collect_server_only() {
    for (const auto& seen : constraints_seen_) {
        if (!constraints_applied_.contains(seen)) note_server_only(seen.second);
    }
}

}  // namespace ipybox::codegen::detail
