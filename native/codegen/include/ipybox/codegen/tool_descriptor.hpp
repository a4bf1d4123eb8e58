#pragma once
// One MCP tool as `tools/list` describes it: the input of the code generator.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ipybox::codegen {

struct tool_descriptor {
    std::string name;                  // the MCP tool name, sent back verbatim on every call
    std::optional<std::string> title;  // `title`, else `annotations.title`, if any
    std::string description;           // may be empty
    nlohmann::json input_schema;       // `inputSchema`; an empty object when absent
    nlohmann::json output_schema;      // `outputSchema`; null when absent
};

// Reads one entry of a `tools/list` result. Unknown keys are ignored; a missing or non-string
// `description`/`title` counts as absent. Throws std::invalid_argument when `tool` is not an object
// or has no string `name`.
tool_descriptor parse_tool_descriptor(const nlohmann::json& tool);

// Reads the `tools` array of a `tools/list` result (or the whole result object holding it).
// Throws std::invalid_argument on the first malformed entry, naming its index.
std::vector<tool_descriptor> parse_tool_list(const nlohmann::json& tools);

}  // namespace ipybox::codegen
