#pragma once
// JSON Schema -> module_ir for one tool. Internal to codegen; pure, thread-safe.
#include "ipybox/codegen/detail/ir.hpp"
#include "ipybox/codegen/tool_descriptor.hpp"

namespace ipybox::codegen::detail {

// Deeper schemas than this are typed `Any` below that depth.
inline constexpr int max_schema_depth = 48;

// Builds `Params` from the input schema, then `Result` from the output schema when that is an
// object with at least one property, with nested models and enums named after their `$defs`
// key, title or property, unique within the module. Input models forbid unknown fields unless
// the schema allows additional properties; output models always allow them (a tolerant reader).
// Never throws for odd schemas: what cannot be typed becomes `Any`.
module_ir build_module_ir(const tool_descriptor& tool);

}  // namespace ipybox::codegen::detail
