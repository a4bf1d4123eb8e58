#include "tool_name_index.hpp"

#include <optional>

#include "ipybox/codegen/naming.hpp"
#include "ipybox/core/log.hpp"

namespace ipybox::app {
namespace {

std::vector<std::string> names_of(const std::vector<mcp::session::tool_descriptor>& tools) {
    std::vector<std::string> names;
    names.reserve(tools.size());
    for (const auto& tool : tools) names.push_back(tool.name);
    return names;
}

// A copy, not a pointer: the lists are replaced while others read them (a pointer into one
// dangled once, and the approval question then showed garbage for the Python name).
std::optional<std::string> find_in(const std::vector<approval::tool_call>& tools,
                                   const std::string& tool) {
    for (const auto& known : tools) {
        if (known.tool_name == tool) return known.python_name;
    }
    return std::nullopt;
}

}  // namespace

std::vector<approval::tool_call> tool_name_index::cache::store(
    const std::string& server, const std::vector<std::string>& mcp_names) {
    const auto python_names = codegen::assign_module_names(mcp_names);
    std::vector<approval::tool_call> tools;
    for (std::size_t i = 0; i < mcp_names.size(); ++i) {
        tools.push_back({server, mcp_names[i], nlohmann::json::object(), python_names[i]});
    }
    std::lock_guard lock(mutex);
    lists[server] = tools;
    return tools;
}

std::vector<approval::tool_call> tool_name_index::tools_of(const std::string& server) {
    {
        std::lock_guard lock(cache_->mutex);
        if (const auto it = cache_->lists.find(server); it != cache_->lists.end()) {
            return it->second;
        }
    }
    return cache_->store(server, names_of(pool_.list_tools(server)));
}

void tool_name_index::async_python_name(const std::string& server, const std::string& tool,
                                        std::function<void(std::string)> done) {
    {
        std::lock_guard lock(cache_->mutex);
        if (const auto it = cache_->lists.find(server); it != cache_->lists.end()) {
            if (auto name = find_in(it->second, tool)) {
                return done(std::move(*name));
            }
        }
    }
    pool_.async_list_tools(
        server, {},
        [cache = cache_, server, tool, done = std::move(done)](
            const std::exception_ptr& error,
            const std::vector<mcp::session::tool_descriptor>& tools) {
            if (!error) {
                if (auto name = find_in(cache->store(server, names_of(tools)), tool)) {
                    return done(std::move(*name));
                }
            } else {
                try {
                    std::rethrow_exception(error);
                } catch (const std::exception& e) {
                    core::logger("approval")
                        ->debug("cannot list the tools of '{}': {}", server, e.what());
                } catch (...) {
                }
            }
            done(codegen::sanitize_module_name(tool));
        });
}

void tool_name_index::forget(const std::string& server) {
    std::lock_guard lock(cache_->mutex);
    cache_->lists.erase(server);
}

}  // namespace ipybox::app
