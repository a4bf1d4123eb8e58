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

// Whether a list occurs in `type` outside of model classes.
bool holds_list(const type_ref& type) {
    if (type.kind == type_kind::list) return true;
    return std::any_of(type.members.begin(), type.members.end(), holds_list);
}

// Pydantic applies Field() constraints to the field's own value alone, so a field's type gives
// up its constraints to the Field() call where it is a scalar or a list, possibly Optional.
// Pydantic 1 would also apply item counts to every list nested in the items: a list of lists
// keeps them in its annotation, where the runtime checks them.
field_constraints hoisted_constraints(type_ref& type) {
    const bool scalar = type.kind == type_kind::integer || type.kind == type_kind::number ||
                        type.kind == type_kind::string;
    const bool flat_list = type.kind == type_kind::list && !holds_list(type.members.at(0));
    if (!scalar && !flat_list) return {};
    return std::exchange(type.constraints, {});
}

bool holds_unsatisfiable(const type_ref& type) {
    return type.unsatisfiable ||
           std::any_of(type.members.begin(), type.members.end(), holds_unsatisfiable);
}

// Why `type` or a type within it is looser than its schema (an Any standing in for what Python
// cannot type), or an empty string. A union with an Any member becomes Any.
std::string loosen(type_ref& type) {
    std::string why = type.loosened_because;
    for (auto& member : type.members) {
        const auto inner = loosen(member);
        if (why.empty()) why = inner;
    }
    const bool any_member =
        std::any_of(type.members.begin(), type.members.end(),
                    [](const type_ref& member) { return member.kind == type_kind::any; });
    if (type.kind == type_kind::union_of && any_member) {
        type = make_type(type_kind::any);
        type.loosened_because = why;
    }
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
                              (!shape_of(root).properties.empty() || !composed));
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
    if (!shape_of(root).properties.empty()) {
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
        std::vector<std::string> properties;
        for (const auto& field : model->fields) properties.push_back(field.json_name);
        const auto names = model_attribute_names(properties, reserved);
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
            // A contradiction a union did not leave out stands as an Any in the field.
            if (i < input_classes_ && holds_unsatisfiable(field.type)) note_server_only("allOf");
            const auto why = loosen(field.type);
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

void module_builder::build_model(const json& schema, const std::string& class_name, int depth,
                                 placement where) {
    const object_shape shape = shape_of(schema);
    for (const json* part : shape.parts) note_schema(*part);
    model_def model;
    model.class_name = class_name;
    if (where == placement::definition) model.description = string_member(schema, "description");
    const bool allows_more = shape.additional != nullptr && is_true_or_schema(*shape.additional);
    // Values of undeclared keys are not typed: only their presence is checked.
    if (shape.additional != nullptr && shape.additional->is_object())
        note_server_only("additionalProperties");
    model.extra = doc_->side == schema_side::output || allows_more ? extra_fields::allow
                                                                   : extra_fields::forbid;
    for (const auto& [name, property] : shape.properties) {
        model.fields.push_back(build_field(name, *property, contains(shape.required, name), depth));
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
    field.constraints = hoisted_constraints(field.type);
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
