#pragma once
// `${NAME}` placeholders in server parameters, filled host-side at connect time.
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ipybox/core/redactor.hpp"

namespace ipybox::workspace {

// Some placeholders had no value. what() lists them: "undefined variable(s): A, B".
class missing_variables_error : public std::runtime_error {
  public:
    explicit missing_variables_error(std::vector<std::string> names);
    const std::vector<std::string>& names() const { return names_; }

  private:
    std::vector<std::string> names_;
};

// `${IPYBOX_WORKSPACE}`: the workspace's path, filled by ipybox itself before the environment
// and .env are looked at (mcp_sources.hpp, host_variables). A saved action's registration
// records the workspace this way, so that another project registers the server with its own
// folders (gentools_library.hpp, registration_record). No secret: never remembered for
// redaction, never judged guessable.
inline constexpr std::string_view workspace_variable = "IPYBOX_WORKSPACE";

// Looks a variable up; std::nullopt when it is not defined.
using variable_lookup = std::function<std::optional<std::string>(std::string_view name)>;

// Returns `value` with every `${NAME}` (NAME = [A-Za-z_][A-Za-z0-9_]*) in every string value,
// at any depth of objects and arrays, replaced by lookup(NAME). Object keys and non-string values
// are untouched; text that only looks similar (`$NAME`, `${A-B}`, `${}`) stays as it is.
// Replacement text is not scanned again. Throws missing_variables_error naming every undefined
// variable (sorted, each once) when at least one lookup fails; `value` is never modified.
// Pure; thread-safe when `lookup` is.
nlohmann::json substitute_placeholders(const nlohmann::json& value, const variable_lookup& lookup);

// The same, and every value it fills in is remembered in `filled` under its variable's name
// (also when another variable is missing), so that the one redaction rule hides it from
// everything ipybox emits (core/redactor.hpp). Servers' parameters are filled through this
// overload, with core::process_redactor().
nlohmann::json substitute_placeholders(const nlohmann::json& value, const variable_lookup& lookup,
                                       core::redactor& filled);

}  // namespace ipybox::workspace
