#pragma once
// Python identifiers derived from schema text: class, attribute and enum member names.
// Internal to codegen; pure, thread-safe except name_registry (one per module being generated).
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ipybox::codegen::detail {

// `inner result-v2` -> `InnerResultV2`: ASCII letters and digits only, each run starting with an
// upper-case letter. Empty when the text has no ASCII letter or digit.
std::string pascal_case(std::string_view text);

// A class name from a hint: pascal_case, prefixed with `fallback` when empty or starting with a
// digit (`2fa` -> `Model2fa`), suffixed with it when a keyword (`none` -> `NoneModel`).
std::string class_name_from(std::string_view hint, std::string_view fallback);

// English singular of a PascalCase plural, good enough for array item classes
// (`Items` -> `Item`, `Repositories` -> `Repository`, `Boxes` -> `Box`, `Status` unchanged).
std::string singular(std::string_view plural);

// Base attribute name for a JSON property (before uniqueness): bytes outside [A-Za-z0-9_] -> `_`,
// leading `_` dropped (pydantic treats them as private), empty -> `field`, leading digit ->
// `field_` prefix, keywords and `reserved` names get a trailing `_`. Case is kept.
std::string attribute_base_name(std::string_view property, const std::set<std::string>& reserved);

// Base enum member name for a string value, with the same rules and `value` as the fallback.
std::string enum_member_base_name(std::string_view value);

// Names a field may not take in a class body: pydantic 1.10 and 2.x BaseModel attributes,
// ToolModel's methods, and the names the generated annotations and defaults use.
const std::set<std::string>& reserved_attribute_names();
// Names an enum member may not take (besides keywords).
const std::set<std::string>& reserved_enum_member_names();
// Names a generated class may not take at module level.
const std::set<std::string>& reserved_class_names();

// The mangler of one namespace (a module's files, a model's fields, an enum's members): unique
// names for `wanted` (same order), none of them in `taken` (what the namespace already holds:
// its reserved names). An entry equal to `exact[i]` is honoured first, in order; the others
// take their base or the first free `<base><separator>2`, `...3`. Callers pass bases that are
// already identifiers and not keywords, so every result is one too.
std::vector<std::string> assign_unique(const std::vector<std::string>& wanted,
                                       const std::vector<std::string>& exact,
                                       std::set<std::string> taken, std::string_view separator);

// Hands out unique names within one module scope.
class name_registry {
  public:
    explicit name_registry(std::set<std::string> reserved) : taken_(std::move(reserved)) {}
    // `base` if free, else `base2`, `base3`, ...; the returned name is taken from then on.
    std::string claim(const std::string& base);
    // Takes `name` as is. Returns false when it was already taken.
    bool claim_exact(const std::string& name) { return taken_.insert(name).second; }
    const std::set<std::string>& taken() const { return taken_; }

  private:
    std::set<std::string> taken_;
};

}  // namespace ipybox::codegen::detail
