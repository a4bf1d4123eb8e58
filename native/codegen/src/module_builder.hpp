#pragma once
// The state of one build_module_ir() call: the classes found so far, the class names taken and
// the `$ref` targets already turned into types. Private to codegen/src; not thread-safe (one
// instance per call).
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ipybox/codegen/detail/identifiers.hpp"
#include "ipybox/codegen/detail/ir.hpp"

namespace ipybox::codegen::detail {

enum class schema_side { input, output };

// An object schema with its `allOf` members folded in (object_shape.cpp). Pointers refer into
// the document or into the builder that made the shape.
struct object_shape {
    std::map<std::string, const nlohmann::json*> properties;  // by name
    std::vector<std::string> required;
    const nlohmann::json* additional = nullptr;  // the additionalProperties in force, if any
    std::vector<const nlohmann::json*> parts;    // the schema and every member folded in
    bool closed() const;                         // additionalProperties: false somewhere
    // A required property that a closing member leaves out: no value fits the object.
    bool contradictory = false;
};

// A schema of annotations only (title, description, default, ...): it accepts every value.
bool is_annotation_only(const nlohmann::json& schema);

// The one schema that `allOf` members of scalars amount to (types in common, the stricter of
// each bound and length, a pattern or step only one member sets), or nothing when they say
// more than such a schema can (two patterns, enums, nested schemas, ...).
std::optional<nlohmann::json> merge_scalar_members(const nlohmann::json& root,
                                                   const nlohmann::json& members);

// Where a schema sits: inline under a property (its description belongs to the Field) or as a
// named definition or root (its description becomes the class docstring).
enum class placement { inline_schema, definition };

class module_builder {
  public:
    explicit module_builder(module_ir& module);

    // Call build_params, then build_result, then assign_attribute_names, then
    // loosen_unfaithful_types, then collect_server_only, once each.
    void build_params(const nlohmann::json& schema);
    void build_result(const nlohmann::json& schema);
    void assign_attribute_names();
    // Types Python cannot represent faithfully become Any, with a note in module_ir::notes.
    void loosen_unfaithful_types();
    // Fills module_ir::server_only from what building the input side left unchecked.
    void collect_server_only();

  private:
    struct document {
        const nlohmann::json* root;
        schema_side side;
        std::map<const nlohmann::json*, type_ref> refs;  // resolved targets, by address
        std::set<const nlohmann::json*> resolving;       // alias chains being followed
    };

    // object_shape.cpp
    object_shape shape_of(const nlohmann::json& schema);
    void fold_into(object_shape& shape, std::optional<std::set<std::string>>& allowed,
                   const nlohmann::json& schema, int depth);

    // ir_builder.cpp: objects and fields
    const nlohmann::json& follow_root(const nlohmann::json& schema) const;
    void build_model(const nlohmann::json& schema, const std::string& class_name, int depth,
                     placement where);
    field_def build_field(const std::string& name, const nlohmann::json& property, bool required,
                          int depth);

    // ir_types.cpp: everything a property can be
    type_ref build_type(const nlohmann::json& schema, const std::string& hint, int depth,
                        placement where);
    type_ref build_ref(const std::string& ref, const std::string& hint, int depth);
    type_ref build_alternatives(const nlohmann::json& alternatives, const std::string& hint,
                                int depth);
    type_ref build_const(const nlohmann::json& value);
    type_ref build_enum(const nlohmann::json& schema, const std::string& hint, placement where);
    type_ref build_for_type(const nlohmann::json& schema, const std::string& type,
                            const std::string& hint, int depth, placement where);
    type_ref build_object(const nlohmann::json& schema, const std::string& hint, int depth,
                          placement where);
    type_ref build_all_of(const nlohmann::json& schema, const nlohmann::json& members,
                          const std::string& hint, int depth, placement where);
    // A model class: an object with properties, or one closed to every property.
    bool is_model_schema(const nlohmann::json& schema);

    // server_only.cpp: what the input side leaves to the server
    void note_schema(const nlohmann::json& schema);
    void note_applied(const nlohmann::json& source, const field_constraints& constraints);
    void note_server_only(const std::string& keyword);

    module_ir& module_;
    name_registry names_;
    std::deque<nlohmann::json> owned_schemas_;  // schemas the builder composed (object_shape)
    document* doc_ = nullptr;
    std::size_t input_classes_ = 0;  // module_.classes[0, input_classes_) model the input
    // Constraint keywords met on the input side, and those a Field() call carries.
    std::set<std::pair<const nlohmann::json*, std::string>> constraints_seen_;
    std::set<std::pair<const nlohmann::json*, std::string>> constraints_applied_;
};

type_ref make_type(type_kind kind, std::string class_name = {});
bool contains(const std::vector<std::string>& items, std::string_view item);

// Members of a union, simplified so that both pydantic versions keep the caller's value:
// duplicates go, literals merge into one Literal, and `int` goes when a `float` accepts all it
// does (ir_unions.cpp).
std::vector<type_ref> simplify_members(std::vector<type_ref> members);

}  // namespace ipybox::codegen::detail
