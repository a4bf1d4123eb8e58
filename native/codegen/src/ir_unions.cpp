// Unions, constants and enums of the IR (module_builder, ir_types.cpp for the other types): how
// a union's members are simplified so that both pydantic majors keep the caller's value.
#include <algorithm>

#include "ipybox/codegen/detail/ir_builder.hpp"
#include "ipybox/codegen/detail/schema_walk.hpp"
#include "module_builder.hpp"

namespace ipybox::codegen::detail {
namespace {

using nlohmann::json;

std::string constraints_key(const field_constraints& c) {
    std::string key;
    const auto add = [&key](const char* name, const auto& value) {
        if (!value) return;
        key += name;
        if constexpr (std::is_same_v<std::decay_t<decltype(*value)>, json>) {
            key += value->dump();
        } else if constexpr (std::is_same_v<std::decay_t<decltype(*value)>, std::string>) {
            key += json(*value).dump();
        } else {
            key += std::to_string(*value);
        }
    };
    add("ge", c.ge);
    add("gt", c.gt);
    add("le", c.le);
    add("lt", c.lt);
    add("mo", c.multiple_of);
    add("nl", c.min_length);
    add("xl", c.max_length);
    add("p", c.pattern);
    add("ni", c.min_items);
    add("xi", c.max_items);
    return key;
}

// A structural key, so that `anyOf: [string, string]` collapses to one member (but a string
// with a maximum length and one without stay two).
std::string type_key(const type_ref& type) {
    std::string key = std::to_string(static_cast<int>(type.kind)) + type.class_name;
    for (const auto& value : type.literal_values) key += "|" + value.dump();
    for (const auto& member : type.members) key += "(" + type_key(member) + ")";
    key += "{" + constraints_key(type.constraints) + "}";
    return key + (type.nullable ? "?" : "");
}

bool is_scalar(type_kind kind) {
    return kind == type_kind::string || kind == type_kind::integer || kind == type_kind::number;
}

// Whether `wider` accepts every value `narrower` does and more, for members of one union: a
// float beside an int it has no stricter bound for, or a scalar without constraints beside one
// of its kind with some.
bool subsumes(const type_ref& wider, const type_ref& narrower) {
    if (wider.kind == type_kind::number && narrower.kind == type_kind::integer) {
        return wider.constraints.empty() || wider.constraints == narrower.constraints;
    }
    return wider.kind == narrower.kind && is_scalar(wider.kind) && wider.constraints.empty() &&
           !narrower.constraints.empty();
}

// Scalars a Literal can hold: every JSON scalar but null (which makes the type Optional).
bool is_literal_scalar(const json& value) {
    return value.is_string() || value.is_boolean() || value.is_number();
}

}  // namespace

// to_arguments sends integral floats as JSON integers anyway, so a float may stand for an int.
std::vector<type_ref> simplify_members(std::vector<type_ref> members) {
    std::vector<type_ref> result;
    std::vector<std::string> keys;
    type_ref literals = make_type(type_kind::literal);
    const auto subsumed = [&members](const type_ref& member) {
        return std::any_of(members.begin(), members.end(),
                           [&member](const type_ref& other) { return subsumes(other, member); });
    };
    for (auto& member : members) {
        if (subsumed(member)) continue;
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
type_ref module_builder::build_alternatives(const json& alternatives, const std::string& hint,
                                            int depth) {
    std::vector<type_ref> members;
    bool nullable = false;
    for (const auto& alternative : alternatives) {
        type_ref member = build_type(alternative, hint, depth + 1, placement::inline_schema);
        if (member.unsatisfiable) continue;                // no value takes this alternative
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
    type_ref loose = make_type(type_kind::any);
    loose.loosened_because = "a const array or object is typed Any";
    return loose;
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
        type = make_type(type_kind::any);
        type.loosened_because = "an enum with arrays or objects among its values is typed Any";
    }
    type.nullable = nullable && type.kind != type_kind::any;
    return type;
}

}  // namespace ipybox::codegen::detail
