#pragma once
// The intermediate model between JSON Schema and Python text: the classes of one tool module.
// Plain values; internal to codegen.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace ipybox::codegen::detail {

enum class type_kind {
    any,          // Any
    string,       // str (every format, date-time included: the text goes out as written)
    integer,      // int
    number,       // float (to_arguments sends integral values as JSON integers)
    boolean,      // bool
    none,         // None (JSON null alone)
    list,         // List[members[0]]
    dict,         // Dict[str, members[0]]
    model,        // class_name, a ToolModel
    enumeration,  // class_name, a (str, Enum)
    literal,      // Literal[literal_values...]; scalars only (floats included)
    union_of,     // Union[members...], never nested, never containing none
};

// Validation keywords of one value, spelled as the runtime's Field() and Constraints() accept
// them. A field's own constraints go into its Field() call; those of a union member, list item
// or map value stay on the type_ref and are rendered as Annotated[..., Constraints(...)].
struct field_constraints {
    std::optional<nlohmann::json> ge, gt, le, lt, multiple_of;  // numbers
    std::optional<std::uint64_t> min_length, max_length;        // strings
    std::optional<std::string> pattern;                         // strings (JSON Schema: search)
    std::optional<std::uint64_t> min_items, max_items;          // lists

    bool empty() const {
        return !ge && !gt && !le && !lt && !multiple_of && !min_length && !max_length && !pattern &&
               !min_items && !max_items;
    }
    bool operator==(const field_constraints&) const = default;
};

struct type_ref {
    type_kind kind = type_kind::any;
    bool nullable = false;  // null is also allowed: Optional[...]
    std::string class_name;
    std::vector<type_ref> members;
    std::vector<nlohmann::json> literal_values;
    field_constraints constraints;  // of string, integer, number and list types
    // Set on an Any that stands in for a schema Python cannot type: why, for the module's notes.
    std::string loosened_because;
    // A schema no value satisfies (allOf members that contradict each other): a union leaves
    // it out; elsewhere it is an Any with a note.
    bool unsatisfiable = false;
};

struct field_def {
    std::string json_name;       // the property name as the server spells it (the alias)
    std::string attribute_name;  // the Python attribute; equal to json_name when that is valid
    type_ref type;               // type.nullable: the schema itself admits null
    bool required = false;
    std::optional<nlohmann::json> default_value;
    std::string description;
    field_constraints constraints;
};

enum class extra_fields { forbid, allow };

struct model_def {
    std::string class_name;
    std::string description;
    std::vector<field_def> fields;
    extra_fields extra = extra_fields::forbid;
};

struct enum_member {
    std::string name;
    std::string value;
};

struct enum_def {
    std::string class_name;
    std::string description;
    std::vector<enum_member> members;
};

using class_def = std::variant<enum_def, model_def>;

struct module_ir {
    // In definition order: whatever a class refers to comes first, except along reference
    // cycles, where the renderer emits forward references.
    std::vector<class_def> classes;
    bool has_result = false;  // a `Result` model exists; otherwise run() returns TextResult
    // Where the schema could not be typed faithfully and a looser type (`Any`) stands in, one
    // sentence each, for the module docstring and the caller of generate_package.
    std::vector<std::string> notes;
    // Keywords of the input schema that Params does not check somewhere (inside unions, items
    // or map values, `uniqueItems`, `if`/`then`/`else`, ...): the server alone checks them.
    std::set<std::string> server_only;
};

}  // namespace ipybox::codegen::detail
