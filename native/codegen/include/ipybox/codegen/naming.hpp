#pragma once
// Names the generator derives from server-supplied text. Pure, thread-safe.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ipybox::codegen {

// A server name that cannot be used as a package directory and import name.
class invalid_server_name : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

// Longest accepted server name and longest generated module name, in bytes.
inline constexpr std::size_t max_server_name_length = 100;
inline constexpr std::size_t max_module_name_length = 100;

// Accepts names that are safe as `mcptools/<name>/` and as `import mcptools.<name>`:
// non-empty, at most max_server_name_length bytes, ASCII `[A-Za-z_][A-Za-z0-9_]*` (so no `/`,
// `.`, `..` or whitespace), not a Python keyword (both rules in core/python_names.hpp), and not
// starting with `_` (which would allow `__pycache__`, `__init__` and other names Python itself
// gives meaning to). Non-ASCII identifiers are refused because Python NFKC-normalises them on
// import but not on disk.
// Throws invalid_server_name with a message that quotes the name and names the broken rule.
void validate_server_name(std::string_view name);

// The module name for one tool: every byte outside [A-Za-z0-9_] becomes `_`, the result is
// lowercased, leading `_` are removed (and trailing ones too for a dunder such as `__init__`),
// an empty result becomes `tool`, a leading digit gets a `tool_` prefix, a keyword gets a
// trailing `_`, and the name is cut to max_module_name_length bytes.
std::string sanitize_module_name(std::string_view tool_name);

// Unique module names for a server's tools, in the same order. Tools whose name is already its
// own sanitised form keep it first; every other tool then takes, in server order, its sanitised
// name or the first free `<name>_2`, `<name>_3`, ...
std::vector<std::string> assign_module_names(const std::vector<std::string>& tool_names);

}  // namespace ipybox::codegen
