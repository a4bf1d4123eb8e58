#include "ipybox/codegen/generator.hpp"

#include "ipybox/codegen/detail/ir_builder.hpp"
#include "ipybox/codegen/detail/renderer.hpp"
#include "ipybox/codegen/naming.hpp"

namespace ipybox::codegen {

generated_package generate_package(std::string_view server_name,
                                   const std::vector<tool_descriptor>& tools) {
    validate_server_name(server_name);
    std::vector<std::string> tool_names;
    tool_names.reserve(tools.size());
    for (const auto& tool : tools) tool_names.push_back(tool.name);
    const auto module_names = assign_module_names(tool_names);

    generated_package package;
    package.server_name = std::string(server_name);
    const std::string prefix = package.server_name + "/";
    package.files.push_back({prefix + "__init__.py",
                             detail::render_package_init(server_name, module_names, tool_names)});
    for (std::size_t i = 0; i < tools.size(); ++i) {
        const auto module = detail::build_module_ir(tools[i]);
        package.files.push_back({prefix + module_names[i] + ".py",
                                 detail::render_tool_module(server_name, tools[i], module)});
        package.modules.push_back(
            {tool_names[i], module_names[i], module.notes,
             std::vector<std::string>(module.server_only.begin(), module.server_only.end())});
    }
    return package;
}

}  // namespace ipybox::codegen
