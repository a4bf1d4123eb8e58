#include "ipybox/codegen/naming.hpp"

#include <set>

#include "ipybox/codegen/detail/identifiers.hpp"
#include "ipybox/codegen/python_literal.hpp"
#include "ipybox/core/python_names.hpp"
#include "ipybox/core/utf8.hpp"

namespace ipybox::codegen {
namespace {

char ascii_lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

[[noreturn]] void refuse(std::string_view name, std::string_view rule) {
    // The name may hold anything (newlines, escapes): quote it as a literal, never raw.
    const std::string shown = name.size() > 120 ? python_string_literal(name.substr(0, 120)) + "..."
                                                : python_string_literal(name);
    throw invalid_server_name("invalid MCP server name " + shown + ": " + std::string(rule));
}

}  // namespace

void validate_server_name(std::string_view name) {
    if (name.empty()) refuse(name, "the name is empty");
    if (name.size() > max_server_name_length) {
        refuse(name,
               "the name is longer than " + std::to_string(max_server_name_length) + " characters");
    }
    if (!core::is_ascii_identifier(name)) {
        refuse(name,
               "the name must be a Python identifier made of ASCII letters, digits and '_', "
               "not starting with a digit (so no '/', '.', '-', spaces or '..')");
    }
    if (name[0] == '_') refuse(name, "the name must not start with '_'");
    if (core::is_python_keyword(name)) refuse(name, "the name is a Python keyword");
}

std::string sanitize_module_name(std::string_view tool_name) {
    // One `_` per code point, as Python's re.sub(r"[^a-zA-Z0-9_]", "_", name) would give.
    std::string name;
    name.reserve(tool_name.size());
    for (std::size_t pos = 0; pos < tool_name.size();) {
        const char32_t c = core::decode_utf8(tool_name, pos);
        const bool keep = c < 0x80 && core::is_identifier_char(static_cast<char>(c));
        name += keep ? ascii_lower(static_cast<char>(c)) : '_';
    }
    const bool dunder = name.size() >= 4 && name.starts_with("__") && name.ends_with("__");
    name.erase(0, name.find_first_not_of('_'));
    if (dunder) {
        while (!name.empty() && name.back() == '_') name.pop_back();
    }
    if (name.empty()) name = "tool";
    if (!core::is_identifier_start(name[0])) name = "tool_" + name;  // a digit
    if (name.size() > max_module_name_length) name.resize(max_module_name_length);
    if (core::is_python_keyword(name)) name += '_';
    return name;
}

std::vector<std::string> assign_module_names(const std::vector<std::string>& tool_names) {
    std::vector<std::string> wanted;
    wanted.reserve(tool_names.size());
    for (const auto& tool_name : tool_names) wanted.push_back(sanitize_module_name(tool_name));
    // "__init__" can never come out of sanitize_module_name; it stays reserved all the same.
    return detail::assign_unique(wanted, tool_names, {"__init__"}, "_");
}

}  // namespace ipybox::codegen
