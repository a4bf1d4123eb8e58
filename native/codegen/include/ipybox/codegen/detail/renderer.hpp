#pragma once
// module_ir -> Python text. Internal to codegen; pure, thread-safe.
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ipybox/codegen/detail/ir.hpp"
#include "ipybox/codegen/tool_descriptor.hpp"

namespace ipybox::codegen::detail {

// The source of one tool module (see generator.hpp for its shape).
std::string render_tool_module(std::string_view server_name, const tool_descriptor& tool,
                               const module_ir& module);

// The package `__init__.py`: SERVER_NAME, a module -> tool name table and `__all__`.
std::string render_package_init(std::string_view server_name,
                                const std::vector<std::string>& module_names,
                                const std::vector<std::string>& tool_names);

// What rendering classes found out: the names to import and whether forward references occur.
struct render_context {
    std::set<std::string> defined;           // classes already emitted at this point of the module
    std::set<std::string> typing_names;      // Any, Dict, List, ... to import from typing
    std::set<std::string> other_names;       // Enum, Field
    std::vector<std::string> forward_users;  // classes that hold forward references, in order
};

// The Python type expression of `type` (Optional[] included when nullable). Classes not yet in
// `context.defined` are quoted as forward references and `*forward` is set.
std::string render_type(const type_ref& type, render_context& context, bool* forward);

// The source of one class (no surrounding blank lines); adds the class to `context.defined`.
std::string render_class(const class_def& def, const module_ir& module, render_context& context);

}  // namespace ipybox::codegen::detail
