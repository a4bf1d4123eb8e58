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

// The ASCII letters, digits and `_` that Python's NFKC normalisation turns `c` into (`ﬁ` ->
// `fi`, fullwidth `ｃ` -> `c`, `ſ` -> `s`), or an empty string when it gives anything else.
std::string nfkc_ascii(char32_t c);

// The naming function of model attributes, applied to all property names of one model at once
// (`properties`: distinct, in the model's order; `reserved`: what the class body may not
// rebind). Injective by construction:
// - a plain name (is_plain_attribute) is its own attribute;
// - every other property, in byte order of the names, gets the first of `base`, `base_2`,
//   `base_3`, ... (attribute_base_name) that is no property name of this model, not reserved
//   and not given to an earlier property. The result depends on the set alone, not its order.
// So an attribute never equals the name of another property (a key of the model's JSON is never
// ambiguous), and every attribute is a public ASCII identifier that is no keyword: NFKC leaves
// it as it is (two attributes cannot fold into one) and pydantic does not take it as private.
// Plain names never move, whatever else the model holds.
std::vector<std::string> model_attribute_names(const std::vector<std::string>& properties,
                                               const std::set<std::string>& reserved);

// An ASCII identifier that does not start with `_`, is no keyword and is not `reserved`.
bool is_plain_attribute(std::string_view property, const std::set<std::string>& reserved);

// Base attribute name for a JSON property (before uniqueness): code points NFKC folds into ASCII
// word text are folded, everything else outside [A-Za-z0-9_] -> `_`, leading `_` dropped
// (pydantic treats them as private), empty -> `field`, leading digit -> `field_` prefix,
// keywords and `reserved` names get a trailing `_`. Case is kept.
std::string attribute_base_name(std::string_view property, const std::set<std::string>& reserved);

// Base enum member name for a string value, with the same rules and `value` as the fallback.
std::string enum_member_base_name(std::string_view value);

// Names a field may not take in a class body: pydantic 1.10 and 2.x BaseModel attributes,
// ToolModel's methods, and class_body_names.
const std::set<std::string>& reserved_attribute_names();
// The names generated annotations and defaults use besides class names (`Optional`,
// `Constraints`, `Field`, ...): neither a field nor a class may rebind them.
const std::set<std::string>& class_body_names();
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
