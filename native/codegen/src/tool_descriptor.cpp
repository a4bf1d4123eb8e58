#include "ipybox/codegen/tool_descriptor.hpp"

#include <stdexcept>

namespace ipybox::codegen {
namespace {

std::optional<std::string> optional_string(const nlohmann::json& object, const char* key) {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
}

}  // namespace

tool_descriptor parse_tool_descriptor(const nlohmann::json& tool) {
    if (!tool.is_object()) throw std::invalid_argument("tool descriptor is not a JSON object");
    auto name = optional_string(tool, "name");
    if (!name) throw std::invalid_argument("tool descriptor has no string \"name\"");
    tool_descriptor descriptor;
    descriptor.name = std::move(*name);
    descriptor.title = optional_string(tool, "title");
    if (!descriptor.title) {
        if (const auto it = tool.find("annotations"); it != tool.end() && it->is_object()) {
            descriptor.title = optional_string(*it, "title");
        }
    }
    descriptor.description = optional_string(tool, "description").value_or("");
    const auto input = tool.find("inputSchema");
    descriptor.input_schema =
        input != tool.end() && input->is_object() ? *input : nlohmann::json::object();
    const auto output = tool.find("outputSchema");
    descriptor.output_schema = output != tool.end() ? *output : nlohmann::json();
    return descriptor;
}

std::vector<tool_descriptor> parse_tool_list(const nlohmann::json& tools) {
    const nlohmann::json* list = &tools;
    if (tools.is_object() && tools.contains("tools")) list = &tools.at("tools");
    if (!list->is_array()) throw std::invalid_argument("tool list is not a JSON array");
    std::vector<tool_descriptor> descriptors;
    descriptors.reserve(list->size());
    for (std::size_t i = 0; i < list->size(); ++i) {
        try {
            descriptors.push_back(parse_tool_descriptor((*list)[i]));
        } catch (const std::invalid_argument& error) {
            throw std::invalid_argument("tool " + std::to_string(i) + ": " + error.what());
        }
    }
    return descriptors;
}

}  // namespace ipybox::codegen
