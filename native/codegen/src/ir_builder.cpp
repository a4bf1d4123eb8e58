#include "ipybox/codegen/detail/ir_builder.hpp"

#include <algorithm>

#include "ipybox/codegen/detail/schema_walk.hpp"
#include "module_builder.hpp"

namespace ipybox::codegen::detail {
namespace {

using nlohmann::json;

bool is_true_or_schema(const json& node) {
    return node.is_object() || (node.is_boolean() && node.get<bool>());
}

// `anyOf: [{type: integer, minimum: 1}, {type: null}]` keeps its constraints on the non-null
// alternative.
const json& constraint_source(const json& property) {
    if (!property.is_object()) return property;
    for (const char* key : {"anyOf", "oneOf"}) {
        const auto it = property.find(key);
        if (it == property.end() || !it->is_array()) continue;
        const json* single = nullptr;
        int non_null = 0;
        for (const auto& alternative : *it) {
            if (schema_types(alternative) == std::vector<std::string>{"null"}) continue;
            ++non_null;
            single = &alternative;
        }
        if (non_null == 1) return *single;
    }
    return property;
}

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

// Whether a list occurs in `type` outside of model classes.
bool holds_list(const type_ref& type) {
    if (type.kind == type_kind::list) return true;
    return std::any_of(type.members.begin(), type.members.end(), holds_list);
}

// Constraints only where both pydantic versions can apply them to the annotation: on a scalar
// or a list, possibly Optional. Constraints inside unions, items or dict values are left to the
// server. Pydantic 1 also applies item counts to every list nested in the items, so a list of
// lists carries none.
field_constraints constraints_for(const json& schema, const type_ref& type) {
    field_constraints c;
    if (!schema.is_object()) return c;
    switch (type.kind) {
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
            if (holds_list(type.members.at(0))) break;
            c.min_items = count_member(schema, "minItems");
            c.max_items = count_member(schema, "maxItems");
            break;
        default:
            break;
    }
    return c;
}

// `Literal[1, True]` cannot work: Python's 1 == True, so pydantic hands back either value for
// both. The same holds for 0 and False.
bool mixes_equal_numbers_and_booleans(const std::vector<json>& values) {
    const auto has = [&values](const json& value) {
        return std::find(values.begin(), values.end(), value) != values.end();
    };
    return (has(json(true)) && has(json(1))) || (has(json(false)) && has(json(0)));
}

// Replaces what cannot be typed faithfully by Any. Returns why, or an empty string when nothing
// was replaced.
std::string loosen(type_ref& type) {
    if (type.kind == type_kind::literal && mixes_equal_numbers_and_booleans(type.literal_values)) {
        type = make_type(type_kind::any);
        return "an enum or const that mixes true/false with 1/0 (equal in Python) is typed Any";
    }
    std::string why;
    for (auto& member : type.members) {
        // Pydantic 1 refuses None for Optional[List[None]] and Optional[Dict[str, None]].
        const bool container = type.kind == type_kind::list || type.kind == type_kind::dict;
        if (container && member.kind == type_kind::none) {
            member = make_type(type_kind::any);
            if (why.empty()) why = "a list or map of nulls is typed with Any items";
        }
        const auto inner = loosen(member);
        if (why.empty()) why = inner;
    }
    const bool any_member =
        std::any_of(type.members.begin(), type.members.end(),
                    [](const type_ref& member) { return member.kind == type_kind::any; });
    if (type.kind == type_kind::union_of && any_member) type = make_type(type_kind::any);
    return why;
}

}  // namespace

type_ref make_type(type_kind kind, std::string class_name) {
    type_ref type;
    type.kind = kind;
    type.class_name = std::move(class_name);
    return type;
}

bool contains(const std::vector<std::string>& items, std::string_view item) {
    return std::find(items.begin(), items.end(), item) != items.end();
}

module_builder::module_builder(module_ir& module)
    : module_(module), names_(reserved_class_names()) {}

void module_builder::build_params(const json& schema) {
    document doc{&schema, schema_side::input, {}, {}};
    doc_ = &doc;
    const json& root = follow_root(schema);
    doc.refs[&schema] = doc.refs[&root] = make_type(type_kind::model, "Params");
    const auto types = schema_types(root);
    const bool composed = root.is_object() && (root.contains("anyOf") || root.contains("oneOf"));
    const bool object_like =
        !root.is_object() || ((types.empty() || contains(types, "object")) &&
                              (has_properties(merged_object(root, 0)) || !composed));
    if (object_like) {
        build_model(root, "Params", 0, placement::definition);
    } else {
        // Not an object schema (against the MCP spec): accept any keyword arguments.
        model_def params;
        params.class_name = "Params";
        params.description = string_member(root, "description");
        params.extra = extra_fields::allow;
        module_.classes.emplace_back(std::move(params));
    }
    input_classes_ = module_.classes.size();
    doc_ = nullptr;
}

void module_builder::build_result(const json& schema) {
    document doc{&schema, schema_side::output, {}, {}};
    doc_ = &doc;
    const json& root = follow_root(schema);
    if (has_properties(merged_object(root, 0))) {
        doc.refs[&schema] = doc.refs[&root] = make_type(type_kind::model, "Result");
        build_model(root, "Result", 0, placement::definition);
        module_.has_result = true;
    }
    doc_ = nullptr;
}

void module_builder::assign_attribute_names() {
    std::set<std::string> reserved = reserved_attribute_names();
    for (const auto& item : module_.classes) {
        std::visit([&](const auto& def) { reserved.insert(def.class_name); }, item);
    }
    for (auto& item : module_.classes) {
        auto* model = std::get_if<model_def>(&item);
        if (model == nullptr) continue;
        std::vector<std::string> wanted;
        std::vector<std::string> exact;
        for (const auto& field : model->fields) {
            wanted.push_back(attribute_base_name(field.json_name, reserved));
            exact.push_back(field.json_name);
        }
        const auto names = assign_unique(wanted, exact, reserved, "_");
        for (std::size_t i = 0; i < names.size(); ++i) {
            model->fields[i].attribute_name = names[i];
        }
    }
}

void module_builder::loosen_unfaithful_types() {
    for (std::size_t i = 0; i < module_.classes.size(); ++i) {
        auto* model = std::get_if<model_def>(&module_.classes[i]);
        if (model == nullptr) continue;
        for (auto& field : model->fields) {
            const auto why = loosen(field.type);
            if (i < input_classes_ && why.find("enum or const") != std::string::npos) {
                note_server_only("enum");
                note_server_only("const");
            }
            if (i < input_classes_ && why.find("nulls") != std::string::npos) {
                note_server_only("type");  // the items are Any: only null is valid there
            }
            if (!why.empty()) {
                module_.notes.push_back(model->class_name + "." + field.attribute_name + ": " +
                                        why);
            }
        }
    }
}

const json& module_builder::follow_root(const json& schema) const {
    const json* node = &schema;
    for (int hops = 0; hops < 8 && node->is_object(); ++hops) {
        const auto ref = string_member(*node, "$ref");
        const json* target = ref.empty() ? nullptr : resolve_local_ref(*doc_->root, ref);
        if (target == nullptr) break;
        node = target;
    }
    return *node;
}

// The object schema with its `allOf` members folded in (properties, required, additional
// properties): enough for the `allOf: [{$ref}, {...}]` compositions servers publish.
json module_builder::merged_object(const json& schema, int depth) const {
    json merged = json::object();
    if (!schema.is_object() || depth > 8) return merged;
    const auto merge = [&merged](const json& part) {
        if (const auto it = part.find("properties"); it != part.end() && it->is_object()) {
            for (const auto& [name, property] : it->items()) merged["properties"][name] = property;
        }
        for (const auto& name : required_names(part)) merged["required"].push_back(name);
        if (const auto it = part.find("additionalProperties"); it != part.end()) {
            merged["additionalProperties"] = *it;
        }
    };
    if (const auto it = schema.find("allOf"); it != schema.end() && it->is_array()) {
        for (const auto& member : *it) {
            const auto ref = string_member(member, "$ref");
            const json* part = ref.empty() ? &member : resolve_local_ref(*doc_->root, ref);
            if (part != nullptr) merge(merged_object(*part, depth + 1));
        }
    }
    merge(schema);
    return merged;
}

void module_builder::build_model(const json& schema, const std::string& class_name, int depth,
                                 placement where) {
    note_schema(schema);
    const json merged = merged_object(schema, 0);
    model_def model;
    model.class_name = class_name;
    if (where == placement::definition) model.description = string_member(schema, "description");
    const auto additional = merged.find("additionalProperties");
    const bool allows_more = additional != merged.end() && is_true_or_schema(*additional);
    // Values of undeclared keys are not typed: only their presence is checked.
    if (additional != merged.end() && additional->is_object())
        note_server_only("additionalProperties");
    model.extra = doc_->side == schema_side::output || allows_more ? extra_fields::allow
                                                                   : extra_fields::forbid;
    const auto required = required_names(merged);
    if (const auto it = merged.find("properties"); it != merged.end()) {
        for (const auto& [name, property] : it->items()) {
            model.fields.push_back(build_field(name, property, contains(required, name), depth));
        }
    }
    // Appended after its fields: whatever this model refers to is defined above it.
    module_.classes.emplace_back(std::move(model));
}

field_def module_builder::build_field(const std::string& name, const json& property, bool required,
                                      int depth) {
    field_def field;
    field.json_name = name;
    field.required = required;
    const std::string title = string_member(property, "title");
    field.type =
        build_type(property, title.empty() ? name : title, depth + 1, placement::inline_schema);
    field.description = string_member(property, "description");
    if (property.is_object()) {
        if (const auto it = property.find("default"); it != property.end()) {
            field.default_value = *it;
        }
    }
    const json& source = constraint_source(follow_root(property));
    field.constraints = constraints_for(source, field.type);
    note_applied(source, field.constraints);
    return field;
}

module_ir build_module_ir(const tool_descriptor& tool) {
    module_ir module;
    module_builder builder(module);
    builder.build_params(tool.input_schema);
    builder.build_result(tool.output_schema);
    builder.assign_attribute_names();
    builder.loosen_unfaithful_types();
    builder.collect_server_only();
    return module;
}

}  // namespace ipybox::codegen::detail
