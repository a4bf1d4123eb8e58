// The types of the IR (module_builder): scalars, objects, models, references and compositions;
// unions, constants and enums are in ir_unions.cpp.
#include <algorithm>

#include "ipybox/codegen/detail/ir_builder.hpp"
#include "ipybox/codegen/detail/schema_walk.hpp"
#include "module_builder.hpp"

namespace ipybox::codegen::detail {
namespace {

using nlohmann::json;

void set_numeric_constraints(const json& schema, field_constraints& c) {
    c.ge = number_member(schema, "minimum");
    c.le = number_member(schema, "maximum");
    // Draft 4 spells exclusiveness as a boolean beside minimum/maximum.
    if (const auto it = schema.find("exclusiveMinimum"); it != schema.end()) {
        if (it->is_number()) {
            c.gt = *it;
        } else if (it->is_boolean() && it->get<bool>()) {
            std::swap(c.gt, c.ge);
        }
    }
    if (const auto it = schema.find("exclusiveMaximum"); it != schema.end()) {
        if (it->is_number()) {
            c.lt = *it;
        } else if (it->is_boolean() && it->get<bool>()) {
            std::swap(c.lt, c.le);
        }
    }
    const auto multiple = number_member(schema, "multipleOf");
    if (multiple && multiple->get<double>() > 0) c.multiple_of = multiple;
}

// The keywords of `schema` that apply to values of `type`'s kind.
field_constraints constraints_for(const json& schema, type_kind kind) {
    field_constraints c;
    switch (kind) {
        case type_kind::integer:
        case type_kind::number:
            set_numeric_constraints(schema, c);
            break;
        case type_kind::string:
            c.min_length = count_member(schema, "minLength");
            c.max_length = count_member(schema, "maxLength");
            if (auto pattern = string_member(schema, "pattern"); !pattern.empty()) {
                c.pattern = std::move(pattern);
            }
            break;
        case type_kind::list:
            c.min_items = count_member(schema, "minItems");
            c.max_items = count_member(schema, "maxItems");
            break;
        default:
            break;
    }
    return c;
}

}  // namespace

bool module_builder::is_model_schema(const json& schema) {
    if (!schema.is_object()) return false;
    const auto shape = shape_of(schema);
    return !shape.properties.empty() || shape.closed();
}

// Whether every member of an `allOf` describes objects (and nothing else), so that the object
// they make together is what the merged shape says.
bool is_object_composition(const json& root, const json& members) {
    for (const auto& member : members) {
        const auto ref = string_member(member, "$ref");
        const json* part = ref.empty() ? &member : resolve_local_ref(root, ref);
        if (part == nullptr || !part->is_object()) return false;
        const auto types = schema_types(*part);
        if (!(types.empty() || types == std::vector<std::string>{"object"})) return false;
        for (const auto& [key, value] : part->items()) {
            const bool object_keyword = key == "type" || key == "properties" || key == "required" ||
                                        key == "additionalProperties" || key == "$defs" ||
                                        key == "definitions";
            if (!object_keyword && !is_annotation_only(json{{key, value}})) {
                if (key != "allOf" || !value.is_array() || !is_object_composition(root, value))
                    return false;
            }
        }
    }
    return true;
}

type_ref module_builder::build_type(const json& schema, const std::string& hint, int depth,
                                    placement where) {
    if (depth > max_schema_depth || !schema.is_object()) return make_type(type_kind::any);
    note_schema(schema);
    const bool openapi_nullable = schema.value("nullable", json(false)) == json(true);
    const auto with_nullable = [openapi_nullable](type_ref type) {
        type.nullable = type.nullable || openapi_nullable;
        return type;
    };
    if (const auto ref = string_member(schema, "$ref"); !ref.empty()) {
        return with_nullable(build_ref(ref, hint, depth));
    }
    for (const char* key : {"anyOf", "oneOf"}) {
        if (const auto it = schema.find(key); it != schema.end() && it->is_array()) {
            if (!has_properties(schema)) return with_nullable(build_alternatives(*it, hint, depth));
        }
    }
    if (const auto it = schema.find("allOf"); it != schema.end() && it->is_array()) {
        return with_nullable(build_all_of(schema, *it, hint, depth, where));
    }
    if (const auto it = schema.find("const"); it != schema.end()) {
        return with_nullable(build_const(*it));
    }
    if (const auto it = schema.find("enum"); it != schema.end() && it->is_array()) {
        return with_nullable(build_enum(schema, hint, where));
    }
    auto types = schema_types(schema);
    const bool null_allowed = contains(types, "null");
    std::erase(types, "null");
    if (types.empty()) {
        if (null_allowed) return make_type(type_kind::none);
        if (schema.contains("properties") || schema.contains("additionalProperties")) {
            types.emplace_back("object");
        } else if (schema.contains("items")) {
            types.emplace_back("array");
        }
    }
    type_ref type;
    if (types.size() == 1) {
        type = build_for_type(schema, types[0], hint, depth, where);
    } else if (types.empty()) {
        type = make_type(type_kind::any);
    } else {
        std::vector<type_ref> members;
        members.reserve(types.size());
        for (const auto& name : types)
            members.push_back(build_for_type(schema, name, hint, depth, where));
        members = simplify_members(std::move(members));
        if (members.size() == 1) {
            type = std::move(members[0]);
        } else {
            type = make_type(type_kind::union_of);
            type.members = std::move(members);
        }
    }
    type.nullable = type.kind != type_kind::any && (null_allowed || openapi_nullable);
    return type;
}

// Members that only annotate (a description beside a `$ref`) accept everything and drop out.
type_ref module_builder::build_all_of(const json& schema, const json& members,
                                      const std::string& hint, int depth, placement where) {
    std::vector<const json*> constraining;
    for (const auto& member : members) {
        if (!is_annotation_only(member)) constraining.push_back(&member);
    }
    json holder = schema;  // the schema's own keywords; its `type` the members repeat, if any
    holder.erase("allOf");
    json untyped = holder;
    untyped.erase("type");
    const bool holder_constrains = !is_annotation_only(untyped);
    if (constraining.size() == 1 && !holder_constrains) {
        return build_type(*constraining[0], hint, depth + 1, where);
    }
    if (constraining.empty()) {
        owned_schemas_.push_back(std::move(holder));
        return build_type(owned_schemas_.back(), hint, depth + 1, where);
    }
    if (is_model_schema(schema) || is_object_composition(*doc_->root, members)) {
        return build_object(schema, hint, depth, where);
    }
    if (!holder_constrains) {
        json all = members;
        if (holder.contains("type")) all.push_back(holder);
        if (auto merged = merge_scalar_members(*doc_->root, all)) {
            owned_schemas_.push_back(std::move(*merged));
            return build_type(owned_schemas_.back(), hint, depth + 1, where);
        }
    }
    note_server_only("allOf");
    type_ref loose = make_type(type_kind::any);
    loose.loosened_because = "an allOf of schemas other than objects is typed Any";
    return loose;
}

// A model where the object has properties or is closed (a closed object without properties is
// an empty model that refuses every key), else a map.
type_ref module_builder::build_object(const json& schema, const std::string& hint, int depth,
                                      placement where) {
    if (shape_of(schema).contradictory) {
        type_ref never = make_type(type_kind::any);
        never.unsatisfiable = true;
        never.loosened_because =
            "an allOf that requires a property one of its members forbids is typed Any";
        return never;
    }
    if (is_model_schema(schema)) {
        const auto class_name = names_.claim(class_name_from(hint, "Model"));
        build_model(schema, class_name, depth, where);
        return make_type(type_kind::model, class_name);
    }
    const auto shape = shape_of(schema);
    for (const json* part : shape.parts) note_schema(*part);
    type_ref dict = make_type(type_kind::dict);
    dict.members.push_back(
        shape.additional != nullptr && shape.additional->is_object()
            ? build_type(*shape.additional, hint + "Value", depth + 1, placement::inline_schema)
            : make_type(type_kind::any));
    return dict;
}

type_ref module_builder::build_for_type(const json& schema, const std::string& type,
                                        const std::string& hint, int depth, placement where) {
    if (type == "object") return build_object(schema, hint, depth, where);
    type_ref built;
    if (type == "array") {
        built = make_type(type_kind::list);
        const auto items = schema.find("items");
        built.members.push_back(items != schema.end() && items->is_object()
                                    ? build_type(*items, singular(class_name_from(hint, "Item")),
                                                 depth + 1, placement::inline_schema)
                                    : make_type(type_kind::any));
    } else if (type == "string") {
        // `format` (date-time, uri, ...) never changes the type: a parsed datetime would be
        // sent back re-serialised (`Z` as `+00:00`, fractions cut), and servers check the text.
        built = make_type(type_kind::string);
    } else if (type == "integer") {
        built = make_type(type_kind::integer);
    } else if (type == "number") {
        built = make_type(type_kind::number);
    } else if (type == "boolean") {
        return make_type(type_kind::boolean);
    } else {
        return make_type(type_kind::any);
    }
    built.constraints = constraints_for(schema, built.kind);
    note_applied(schema, built.constraints);
    return built;
}

type_ref module_builder::build_ref(const std::string& ref, const std::string& hint, int depth) {
    const json* target = resolve_local_ref(*doc_->root, ref);
    if (target == nullptr) return make_type(type_kind::any);
    if (const auto it = doc_->refs.find(target); it != doc_->refs.end()) return it->second;
    if (doc_->resolving.contains(target)) return make_type(type_kind::any);  // alias loop
    const std::string name = ref_name(ref).empty() ? hint : ref_name(ref);
    if (is_model_schema(*target) && !shape_of(*target).contradictory) {
        // Registered before its fields are built, so a cycle back to it finds the class name.
        const auto class_name = names_.claim(class_name_from(name, "Model"));
        auto& type = doc_->refs[target] = make_type(type_kind::model, class_name);
        type.nullable = target->value("nullable", json(false)) == json(true);  // OpenAPI
        build_model(*target, class_name, depth + 1, placement::definition);
        return doc_->refs[target];
    }
    doc_->resolving.insert(target);
    type_ref type = build_type(*target, name, depth + 1, placement::definition);
    doc_->resolving.erase(target);
    doc_->refs[target] = type;
    return type;
}

}  // namespace ipybox::codegen::detail
