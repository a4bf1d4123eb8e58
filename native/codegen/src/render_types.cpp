#include <algorithm>

#include "ipybox/codegen/detail/renderer.hpp"
#include "ipybox/codegen/python_literal.hpp"

namespace ipybox::codegen::detail {
namespace {

constexpr std::size_t line_limit = 100;
constexpr std::size_t description_width = 72;

std::string join(const std::vector<std::string>& items, std::string_view separator) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += separator;
        out += items[i];
    }
    return out;
}

const enum_def* find_enum(const module_ir& module, const std::string& class_name) {
    for (const auto& item : module.classes) {
        const auto* def = std::get_if<enum_def>(&item);
        if (def != nullptr && def->class_name == class_name) return def;
    }
    return nullptr;
}

// A default for an enum field names the member (`Sort.stars`) when one has that value.
std::string render_default(const nlohmann::json& value, const type_ref& type,
                           const module_ir& module) {
    if (type.kind == type_kind::enumeration && value.is_string()) {
        if (const auto* def = find_enum(module, type.class_name)) {
            for (const auto& member : def->members) {
                if (member.value == value.get_ref<const std::string&>()) {
                    return def->class_name + "." + member.name;
                }
            }
        }
    }
    return python_value_literal(value);
}

void add_constraint(std::vector<std::string>& args, const char* name,
                    const std::optional<nlohmann::json>& value) {
    if (value) args.push_back(std::string(name) + "=" + python_value_literal(*value));
}

void add_count(std::vector<std::string>& args, const char* name,
               const std::optional<std::uint64_t>& value) {
    if (value) args.push_back(std::string(name) + "=" + std::to_string(*value));
}

struct keyword_arguments {
    std::vector<std::string> short_args;  // alias=..., constraints
    std::string description;              // raw text, may be long
};

// `ge=1, max_length=3, ...`, in the order Field() and Constraints() document them.
std::vector<std::string> constraint_arguments(const field_constraints& c) {
    std::vector<std::string> args;
    add_constraint(args, "ge", c.ge);
    add_constraint(args, "gt", c.gt);
    add_constraint(args, "le", c.le);
    add_constraint(args, "lt", c.lt);
    add_constraint(args, "multiple_of", c.multiple_of);
    add_count(args, "min_length", c.min_length);
    add_count(args, "max_length", c.max_length);
    if (c.pattern) args.push_back("pattern=" + python_string_literal(*c.pattern));
    add_count(args, "min_items", c.min_items);
    add_count(args, "max_items", c.max_items);
    return args;
}

keyword_arguments field_keywords(const field_def& field, bool constant) {
    keyword_arguments kw;
    if (field.attribute_name != field.json_name) {
        kw.short_args.push_back("alias=" + python_string_literal(field.json_name));
    }
    kw.description = field.description;
    const auto constraints = constraint_arguments(field.constraints);
    kw.short_args.insert(kw.short_args.end(), constraints.begin(), constraints.end());
    // What to_arguments needs beyond the annotation: a None the caller sets is sent where the
    // schema admits null (Optional[] alone cannot say so: every optional field has it), and a
    // required constant is sent even when the caller leaves it out.
    const bool typed = field.type.kind != type_kind::any && field.type.kind != type_kind::none;
    if (!field.required && field.type.nullable && typed)
        kw.short_args.emplace_back("nullable=True");
    if (constant) kw.short_args.emplace_back("constant=True");
    return kw;
}

std::string render_field(const field_def& field, const module_ir& module, render_context& context,
                         bool* forward) {
    type_ref type = field.type;
    const bool is_const =
        type.kind == type_kind::literal && type.literal_values.size() == 1 && !type.nullable;
    // A default the type refuses (`const: "a", default: "b"`) is never sent and is dropped.
    const bool default_fits = !field.default_value || type.kind != type_kind::literal ||
                              std::find(type.literal_values.begin(), type.literal_values.end(),
                                        *field.default_value) != type.literal_values.end();
    const bool has_default = field.default_value && !field.default_value->is_null() && default_fits;
    // Optional[] is spelled out wherever None is allowed or is the default, and every such field
    // gets an explicit default or Field(...): pydantic 1 and 2 then agree on what is required.
    if (!field.required && !has_default) type.nullable = true;
    if (type.kind == type_kind::any || type.kind == type_kind::none) type.nullable = false;
    bool field_forward = false;
    std::string annotation = render_type(type, context, &field_forward);
    // Pydantic 1 refuses constraints on a type it cannot see yet (a forward reference) as
    // "set but not enforced": there they go into the annotation, where the runtime checks them.
    field_def constrained = field;
    if (field_forward && !field.constraints.empty()) {
        type.constraints = std::exchange(constrained.constraints, {});
        annotation = render_type(type, context, &field_forward);
    }
    *forward = *forward || field_forward;

    std::string default_expr;
    if (field.required) {
        default_expr = is_const ? python_value_literal(type.literal_values[0]) : "...";
    } else {
        default_expr = has_default ? render_default(*field.default_value, type, module) : "None";
    }
    const auto kw = field_keywords(constrained, field.required && is_const);
    const std::string head = "    " + field.attribute_name + ": " + annotation;
    if (kw.short_args.empty() && kw.description.empty()) {
        const bool needs_field_call = type.nullable || type.kind == type_kind::any;
        if (default_expr != "...") return head + " = " + default_expr + "\n";
        if (!needs_field_call) return head + "\n";
    }
    context.other_names.insert("Field");
    std::vector<std::string> args{default_expr};
    args.insert(args.end(), kw.short_args.begin(), kw.short_args.end());
    if (!kw.description.empty())
        args.push_back("description=" + python_string_literal(kw.description));
    const std::string one_line = head + " = Field(" + join(args, ", ") + ")";
    if (one_line.size() <= line_limit) return one_line + "\n";

    // Exploded form, one argument per line; a long description becomes implicitly
    // concatenated literals, each a complete literal of its own.
    std::string out = head + " = Field(\n";
    for (std::size_t i = 0; i + (kw.description.empty() ? 0 : 1) < args.size(); ++i) {
        out += "        " + args[i] + ",\n";
    }
    if (!kw.description.empty()) {
        const std::string single =
            "        description=" + python_string_literal(kw.description) + ",";
        if (single.size() <= line_limit) {
            out += single + "\n";
        } else {
            out += "        description=(\n";
            for (const auto& piece :
                 python_string_literal_lines(kw.description, description_width)) {
                out += "            " + piece + "\n";
            }
            out += "        ),\n";
        }
    }
    return out + "    )\n";
}

// The docstring's list of attributes named otherwise than their property, with how to pass
// them; empty when every attribute is its property's name.
std::string renamed_attributes(const model_def& model) {
    std::string entries;
    const field_def* first = nullptr;
    for (const auto& field : model.fields) {
        if (field.attribute_name == field.json_name) continue;
        if (first == nullptr) first = &field;
        const std::string literal = python_string_literal(field.json_name);
        const std::string ascii = python_ascii_literal(field.json_name);
        entries += "\n- `" + field.attribute_name + "`: " + literal;
        // Non-ASCII text that looks like other names in print (`ﬁle`, `K`) spelled out too.
        if (ascii != literal) entries += " (in ASCII: " + ascii + ")";
    }
    if (first == nullptr) return {};
    if (model.extra == extra_fields::allow) {
        return "Fields whose Python name differs from the property name. Pass the property name, "
               "as in `**{" +
               python_string_literal(first->json_name) +
               ": ...}`: this model keeps undeclared keys, so a Python name is sent as a key of "
               "its own.\n" +
               entries;
    }
    return "Fields whose Python name differs from the property name (pass either as a keyword):\n" +
           entries;
}

std::string render_model(const model_def& model, const module_ir& module, render_context& context) {
    std::string out = "class " + model.class_name + "(ToolModel";
    if (model.extra == extra_fields::allow) out += ", extra='allow'";
    out += "):\n";
    std::string doc = model.description;
    if (const auto renamed = renamed_attributes(model); !renamed.empty()) {
        // A description that is only whitespace is dropped, as python_docstring would drop it.
        doc = clean_docstring_text(doc).empty() ? renamed : doc + "\n\n" + renamed;
    }
    if (!doc.empty()) {
        out += "    " + python_docstring(doc, 4) + "\n";
        if (!model.fields.empty()) out += "\n";
    } else if (model.fields.empty()) {
        out += "    pass\n";
    }
    bool forward = false;
    for (const auto& field : model.fields) out += render_field(field, module, context, &forward);
    if (forward) context.forward_users.push_back(model.class_name);
    return out;
}

std::string render_enum(const enum_def& def, render_context& context) {
    context.other_names.insert("Enum");
    std::string out = "class " + def.class_name + "(str, Enum):\n";
    if (!def.description.empty()) out += "    " + python_docstring(def.description, 4) + "\n\n";
    for (const auto& member : def.members) {
        out += "    " + member.name + " = " + python_string_literal(member.value) + "\n";
    }
    return out;
}

}  // namespace

std::string render_type(const type_ref& type, render_context& context, bool* forward) {
    std::string inner;
    const auto members = [&]() {
        std::vector<std::string> rendered;
        for (const auto& member : type.members)
            rendered.push_back(render_type(member, context, forward));
        return rendered;
    };
    switch (type.kind) {
        case type_kind::any:
            context.typing_names.insert("Any");
            return "Any";
        case type_kind::none:
            return "None";
        case type_kind::string:
            inner = "str";
            break;
        case type_kind::integer:
            inner = "int";
            break;
        case type_kind::number:
            inner = "float";
            break;
        case type_kind::boolean:
            inner = "bool";
            break;
        case type_kind::list:
            context.typing_names.insert("List");
            inner = "List[" + join(members(), ", ") + "]";
            break;
        case type_kind::dict:
            context.typing_names.insert("Dict");
            inner = "Dict[str, " + join(members(), ", ") + "]";
            break;
        case type_kind::model:
        case type_kind::enumeration:
            if (context.defined.contains(type.class_name)) {
                inner = type.class_name;
            } else {
                inner = python_string_literal(type.class_name);
                *forward = true;
            }
            break;
        case type_kind::literal: {
            context.typing_names.insert("Literal");
            std::vector<std::string> values;
            for (const auto& value : type.literal_values)
                values.push_back(python_value_literal(value));
            inner = "Literal[" + join(values, ", ") + "]";
            break;
        }
        case type_kind::union_of:
            context.typing_names.insert("Union");
            inner = "Union[" + join(members(), ", ") + "]";
            break;
    }
    if (!type.constraints.empty()) {
        context.typing_names.insert("Annotated");
        context.other_names.insert("Constraints");
        inner = "Annotated[" + inner + ", Constraints(" +
                join(constraint_arguments(type.constraints), ", ") + ")]";
    }
    if (!type.nullable) return inner;
    context.typing_names.insert("Optional");
    return "Optional[" + inner + "]";
}

std::string render_class(const class_def& def, const module_ir& module, render_context& context) {
    std::string out;
    if (const auto* model = std::get_if<model_def>(&def)) {
        out = render_model(*model, module, context);
        context.defined.insert(model->class_name);
    } else {
        const auto& enumeration = std::get<enum_def>(def);
        out = render_enum(enumeration, context);
        context.defined.insert(enumeration.class_name);
    }
    return out;
}

}  // namespace ipybox::codegen::detail
