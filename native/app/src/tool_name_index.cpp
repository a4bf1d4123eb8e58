#include "tool_name_index.hpp"

#include <optional>

#include "ipybox/codegen/naming.hpp"
#include "ipybox/core/log.hpp"

namespace ipybox::app {

std::vector<approval::tool_call> tool_name_index::list(const std::string& server) {
    std::vector<std::string> mcp_names;
    for (const auto& tool : pool_.list_tools(server)) mcp_names.push_back(tool.name);
    const auto python_names = codegen::assign_module_names(mcp_names);
    std::vector<approval::tool_call> tools;
    for (std::size_t i = 0; i < mcp_names.size(); ++i) {
        tools.push_back({server, mcp_names[i], nlohmann::json::object(), python_names[i]});
    }
    std::lock_guard lock(mutex_);
    cache_[server] = tools;
    return tools;
}

std::vector<approval::tool_call> tool_name_index::tools_of(const std::string& server) {
    {
        std::lock_guard lock(mutex_);
        if (const auto it = cache_.find(server); it != cache_.end()) return it->second;
    }
    return list(server);
}

std::string tool_name_index::python_name(const std::string& server, const std::string& tool) {
    // A copy, not a pointer: the lists are temporaries (a pointer into one dangled, and the
    // approval question then showed garbage for the Python name).
    const auto find =
        [&](const std::vector<approval::tool_call>& tools) -> std::optional<std::string> {
        for (const auto& known : tools) {
            if (known.tool_name == tool) return known.python_name;
        }
        return std::nullopt;
    };
    try {
        if (auto name = find(tools_of(server))) return std::move(*name);
        if (auto name = find(list(server))) return std::move(*name);  // a tool added since
    } catch (const std::exception& e) {
        core::logger("approval")->debug("cannot list the tools of '{}': {}", server, e.what());
    }
    return codegen::sanitize_module_name(tool);
}

void tool_name_index::forget(const std::string& server) {
    std::lock_guard lock(mutex_);
    cache_.erase(server);
}

approval::decision python_naming_gate::decide(const approval::tool_call& call) {
    auto named = call;
    if (named.python_name.empty()) {
        named.python_name = names_.python_name(call.server_name, call.tool_name);
    }
    return inner_.decide(named);
}

}  // namespace ipybox::app
