#include <algorithm>

#include "ipybox/codegen/detail/ir_builder.hpp"
#include "ipybox/codegen/detail/schema_walk.hpp"
#include "module_builder.hpp"

namespace ipybox::codegen::detail {
namespace {

using nlohmann::json;

// A structural key, so that `anyOf: [string, string]` collapses to one member.
std::string type_key(const type_ref& type) {
    std::string key = std::to_string(static_cast<int>(type.kind)) + type.class_name;
    for (const auto& value : type.literal_values) key += "|" + value.dump();
    for (const auto& member : type.members) key += "(" + type_key(member) + ")";
    return key + (type.nullable ? "?" : "");
}

bool is_literal_scalar(const json& value) {
    return value.is_string() || value.is_boolean() || value.is_number_integer();
}

bool has_kind(const std::vector<type_ref>& members, type_kind kind) {
    return std::any_of(members.begin(), members.end(),
                       [kind](const type_ref& member) { return member.kind == kind; });
}

// Members of a union, simplified so that both pydantic versions keep the caller's value:
// duplicates go, literals merge into one Literal, and `int` goes when `float` is present
// (to_arguments sends integral floats as JSON integers anyway).
std::vector<type_ref> simplify_members(std::vector<type_ref> members) {
    std::vector<type_ref> result;
    std::vector<std::string> keys;
    type_ref literals = make_type(type_kind::literal);
    const bool has_float = has_kind(members, type_kind::number);
    for (auto& member : members) {
        if (member.kind == type_kind::integer && has_float) continue;
        if (member.kind == type_kind::literal) {
            for (auto& value : member.literal_values) {
                if (std::find(literals.literal_values.begin(), literals.literal_values.end(),
                              value) == literals.literal_values.end()) {
                    literals.literal_values.push_back(std::move(value));
                }
            }
            continue;
        }
        auto key = type_key(member);
        if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
        keys.push_back(std::move(key));
        result.push_back(std::move(member));
    }
    if (!literals.literal_values.empty()) result.insert(result.begin(), std::move(literals));
    return result;
}

}  // namespace

bool module_builder::is_model_schema(const json& schema) const {
    return schema.is_object() && has_properties(merged_object(schema, 0));
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
        if (it->size() == 1 && !has_properties(schema)) {
            return with_nullable(build_type((*it)[0], hint, depth + 1, where));
        }
        if (!is_model_schema(schema)) {
            note_server_only("allOf");
            return make_type(type_kind::any);
        }
        const auto class_name = names_.claim(class_name_from(hint, "Model"));
        build_model(schema, class_name, depth, where);
        return with_nullable(make_type(type_kind::model, class_name));
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

type_ref module_builder::build_for_type(const json& schema, const std::string& type,
                                        const std::string& hint, int depth, placement where) {
    if (type == "object") {
        if (is_model_schema(schema)) {
            const auto class_name = names_.claim(class_name_from(hint, "Model"));
            build_model(schema, class_name, depth, where);
            return make_type(type_kind::model, class_name);
        }
        type_ref dict = make_type(type_kind::dict);
        const auto additional = schema.find("additionalProperties");
        if (additional != schema.end() && *additional == json(false)) {
            note_server_only("additionalProperties");  // {} alone is valid; Dict takes any keys
        }
        dict.members.push_back(
            additional != schema.end() && additional->is_object()
                ? build_type(*additional, hint + "Value", depth + 1, placement::inline_schema)
                : make_type(type_kind::any));
        return dict;
    }
    if (type == "array") {
        type_ref list = make_type(type_kind::list);
        const auto items = schema.find("items");
        list.members.push_back(items != schema.end() && items->is_object()
                                   ? build_type(*items, singular(class_name_from(hint, "Item")),
                                                depth + 1, placement::inline_schema)
                                   : make_type(type_kind::any));
        return list;
    }
    // `format` (date-time, uri, ...) never changes the type: a parsed datetime would be sent
    // back re-serialised (`Z` as `+00:00`, fractions cut), and servers check the text.
    if (type == "string") return make_type(type_kind::string);
    if (type == "integer") return make_type(type_kind::integer);
    if (type == "number") return make_type(type_kind::number);
    if (type == "boolean") return make_type(type_kind::boolean);
    return make_type(type_kind::any);
}

type_ref module_builder::build_ref(const std::string& ref, const std::string& hint, int depth) {
    const json* target = resolve_local_ref(*doc_->root, ref);
    if (target == nullptr) return make_type(type_kind::any);
    if (const auto it = doc_->refs.find(target); it != doc_->refs.end()) return it->second;
    if (doc_->resolving.contains(target)) return make_type(type_kind::any);  // alias loop
    const std::string name = ref_name(ref).empty() ? hint : ref_name(ref);
    if (is_model_schema(*target)) {
        // Registered before its fields are built, so a cycle back to it finds the class name.
        const auto class_name = names_.claim(class_name_from(name, "Model"));
        doc_->refs[target] = make_type(type_kind::model, class_name);
        build_model(*target, class_name, depth + 1, placement::definition);
        return doc_->refs[target];
    }
    doc_->resolving.insert(target);
    type_ref type = build_type(*target, name, depth + 1, placement::definition);
    doc_->resolving.erase(target);
    doc_->refs[target] = type;
    return type;
}

type_ref module_builder::build_alternatives(const json& alternatives, const std::string& hint,
                                            int depth) {
    std::vector<type_ref> members;
    bool nullable = false;
    for (const auto& alternative : alternatives) {
        type_ref member = build_type(alternative, hint, depth + 1, placement::inline_schema);
        if (member.kind == type_kind::any) return member;  // Any already admits everything
        if (member.kind == type_kind::none) {
            nullable = true;
            continue;
        }
        nullable = nullable || member.nullable;
        member.nullable = false;
        if (member.kind == type_kind::union_of) {
            for (auto& inner : member.members) members.push_back(std::move(inner));
        } else {
            members.push_back(std::move(member));
        }
    }
    members = simplify_members(std::move(members));
    type_ref type;
    if (members.empty()) {
        type = make_type(nullable ? type_kind::none : type_kind::any);
        return type;
    }
    if (members.size() == 1) {
        type = std::move(members[0]);
    } else {
        type = make_type(type_kind::union_of);
        type.members = std::move(members);
    }
    type.nullable = nullable;
    return type;
}

type_ref module_builder::build_const(const json& value) {
    if (value.is_null()) return make_type(type_kind::none);
    if (is_literal_scalar(value)) {
        type_ref type = make_type(type_kind::literal);
        type.literal_values.push_back(value);
        return type;
    }
    note_server_only("const");
    return make_type(value.is_number() ? type_kind::number : type_kind::any);
}

type_ref module_builder::build_enum(const json& schema, const std::string& hint, placement where) {
    std::vector<json> values;
    bool nullable = false;
    for (const auto& value : schema.at("enum")) {
        if (value.is_null()) {
            nullable = true;
        } else if (std::find(values.begin(), values.end(), value) == values.end()) {
            values.push_back(value);
        }
    }
    type_ref type;
    if (values.empty()) {
        return make_type(nullable ? type_kind::none : type_kind::any);
    }
    if (std::all_of(values.begin(), values.end(), [](const json& v) { return v.is_string(); })) {
        enum_def def;
        def.class_name = names_.claim(class_name_from(hint, "Choice"));
        if (where == placement::definition) def.description = string_member(schema, "description");
        std::vector<std::string> wanted;
        std::vector<std::string> exact;
        for (const auto& value : values) {
            wanted.push_back(enum_member_base_name(value.get<std::string>()));
            exact.push_back(value.get<std::string>());
        }
        const auto names = assign_unique(wanted, exact, reserved_enum_member_names(), "_");
        for (std::size_t i = 0; i < values.size(); ++i) {
            def.members.push_back({names[i], values[i].get<std::string>()});
        }
        type = make_type(type_kind::enumeration, def.class_name);
        module_.classes.emplace_back(std::move(def));
    } else if (std::all_of(values.begin(), values.end(), is_literal_scalar)) {
        type = make_type(type_kind::literal);
        type.literal_values = std::move(values);
    } else {
        note_server_only("enum");
        const bool numbers =
            std::all_of(values.begin(), values.end(), [](const json& v) { return v.is_number(); });
        type = make_type(numbers ? type_kind::number : type_kind::any);
    }
    type.nullable = nullable && type.kind != type_kind::any;
    return type;
}

}  // namespace ipybox::codegen::detail
