#include "ipybox/workspace/placeholders.hpp"

#include <set>

namespace ipybox::workspace {
namespace {

bool is_name_start(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool is_name_char(char c) {
    return is_name_start(c) || (c >= '0' && c <= '9');
}

std::string describe(const std::vector<std::string>& names) {
    std::string text = "undefined variable(s): ";
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i > 0) text += ", ";
        text += names[i];
    }
    return text;
}

struct fill_state {
    const variable_lookup& lookup;
    std::set<std::string> missing;
    core::redactor* filled = nullptr;
};

std::string substitute_string(const std::string& text, fill_state& state) {
    std::string out;
    out.reserve(text.size());
    std::size_t pos = 0;
    while (pos < text.size()) {
        const auto open = text.find("${", pos);
        if (open == std::string::npos) break;
        std::size_t end = open + 2;
        if (end < text.size() && is_name_start(text[end])) {
            while (end < text.size() && is_name_char(text[end])) ++end;
        }
        const bool is_placeholder = end > open + 2 && end < text.size() && text[end] == '}';
        if (!is_placeholder) {
            out.append(text, pos, open + 2 - pos);
            pos = open + 2;
            continue;
        }
        out.append(text, pos, open - pos);
        const std::string name = text.substr(open + 2, end - open - 2);
        if (auto value = state.lookup(name)) {
            if (state.filled != nullptr && name != workspace_variable) {
                state.filled->remember(name, *value);
            }
            out += *value;
        } else {
            state.missing.insert(name);
        }
        pos = end + 1;
    }
    out.append(text, pos, std::string::npos);
    return out;
}

nlohmann::json substitute(const nlohmann::json& value, fill_state& state) {
    if (value.is_string()) return substitute_string(value.get_ref<const std::string&>(), state);
    if (value.is_array()) {
        nlohmann::json result = nlohmann::json::array();
        for (const auto& item : value) result.push_back(substitute(item, state));
        return result;
    }
    if (value.is_object()) {
        nlohmann::json result = nlohmann::json::object();
        for (const auto& [key, item] : value.items()) result[key] = substitute(item, state);
        return result;
    }
    return value;
}

nlohmann::json fill(const nlohmann::json& value, fill_state& state) {
    nlohmann::json result = substitute(value, state);
    if (!state.missing.empty()) {
        throw missing_variables_error({state.missing.begin(), state.missing.end()});
    }
    return result;
}

}  // namespace

missing_variables_error::missing_variables_error(std::vector<std::string> names)
    : std::runtime_error(describe(names)), names_(std::move(names)) {}

nlohmann::json substitute_placeholders(const nlohmann::json& value, const variable_lookup& lookup) {
    fill_state state{lookup, {}, nullptr};
    return fill(value, state);
}

nlohmann::json substitute_placeholders(const nlohmann::json& value, const variable_lookup& lookup,
                                       core::redactor& filled) {
    fill_state state{lookup, {}, &filled};
    return fill(value, state);
}

}  // namespace ipybox::workspace
