#include "ipybox/workspace/outside_project.hpp"

#include <algorithm>
#include <system_error>

namespace ipybox::workspace {
namespace {

using nlohmann::json;

bool inside(const std::filesystem::path& path, const std::filesystem::path& project) {
    auto at = path.begin();
    for (const auto& part : project) {
        if (part.empty()) continue;  // the trailing "" of "/a/b/"
        if (at == path.end() || *at != part) return false;
        ++at;
    }
    return true;
}

bool is_regular_file(const std::string& text) {
    std::error_code ignored;
    return std::filesystem::is_regular_file(text, ignored);
}

}  // namespace

std::vector<std::string> paths_outside_project(const json& params,
                                               const std::filesystem::path& project) {
    std::vector<std::string> found;
    if (!params.is_object()) return found;
    std::vector<const json*> values;
    for (const char* key : {"command", "cwd"}) {
        if (auto at = params.find(key); at != params.end()) values.push_back(&*at);
    }
    if (auto args = params.find("args"); args != params.end() && args->is_array()) {
        for (const auto& arg : *args) values.push_back(&arg);
    }
    const auto base = project.lexically_normal();
    for (const auto* value : values) {
        if (!value->is_string()) continue;
        auto text = value->get<std::string>();
        if (text.find("${") != std::string::npos) continue;
        if (const auto equals = text.find('='); text.starts_with('-') && equals != text.npos) {
            text = text.substr(equals + 1);
        }
        if (!text.starts_with('/') || std::ranges::find(found, text) != found.end()) continue;
        if (inside(std::filesystem::path(text).lexically_normal(), base)) continue;
        if (is_regular_file(text)) continue;
        found.push_back(std::move(text));
    }
    return found;
}

}  // namespace ipybox::workspace
