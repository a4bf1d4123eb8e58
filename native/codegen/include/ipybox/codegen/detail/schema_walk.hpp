#pragma once
// Reading JSON Schema documents: local `$ref` resolution and small keyword helpers.
// Internal to codegen; pure, thread-safe.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ipybox::codegen::detail {

// Resolves a local reference (`#`, `#/$defs/X`, `#/definitions/X`, any JSON pointer with `~0`,
// `~1` and %-escapes) against `root`. Returns nullptr for remote or dangling references.
const nlohmann::json* resolve_local_ref(const nlohmann::json& root, std::string_view ref);

// The last segment of a reference, unescaped (`#/$defs/Inner` -> `Inner`); empty for `#`.
std::string ref_name(std::string_view ref);

// The schema's `type` as a list (`"string"` -> {"string"}); empty when absent or malformed.
std::vector<std::string> schema_types(const nlohmann::json& schema);

// The string value of `key`, or empty.
std::string string_member(const nlohmann::json& schema, std::string_view key);

// A non-negative integer member (`minLength`, ...), if present and valid.
std::optional<std::uint64_t> count_member(const nlohmann::json& schema, std::string_view key);

// A number member (`minimum`, ...), if present.
std::optional<nlohmann::json> number_member(const nlohmann::json& schema, std::string_view key);

// The `required` list of an object schema as a set-like vector of strings.
std::vector<std::string> required_names(const nlohmann::json& schema);

// True when the schema is a JSON object that has at least one property.
bool has_properties(const nlohmann::json& schema);

}  // namespace ipybox::codegen::detail
