#pragma once
// Saving a code action into the user's gentools library on behalf of kernel code that may not
// write there itself (a sandboxed kernel: POST /gentools, see routes.hpp). The tool server checks
// the request's shape and asks the approval gate; a library_writer, implemented by the
// application, does the writing. Everything in a request comes from kernel code and is hostile
// until checked: the names are checked here, and again by the writer before it writes.
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace ipybox::toolserver {

// The files of one action, by name: exactly these, each at most max_gentool_file_bytes (as is
// the category's __init__.py). The approval question shows every file in full, so this is also
// the most a person is asked to read per file.
inline constexpr const char* gentool_file_names[] = {"__init__.py", "api.py", "impl.py"};
inline constexpr std::size_t max_gentool_file_bytes = 64 * 1024;
inline constexpr std::size_t max_gentool_name_length = 64;

struct gentool_save {
    std::string category;
    std::string name;
    std::map<std::string, std::string> files;  // file name -> UTF-8 text
    // The category's __init__.py, written only where the category has none.
    std::optional<std::string> category_init;
    bool overwrite = false;  // replace the action's files when they exist
};

struct gentool_save_outcome {
    std::optional<std::filesystem::path> package;  // set on success: the action's folder
    std::string error_type;                        // see error_type in tool_invoker.hpp
    std::string error_message;

    static gentool_save_outcome saved(std::filesystem::path package) {
        return {std::move(package), {}, {}};
    }
    static gentool_save_outcome failure(std::string type, std::string message) {
        return {std::nullopt, std::move(type), std::move(message)};
    }
};

// Thread-safety: save() may be called from several connection threads at once.
class library_writer {
  public:
    virtual ~library_writer() = default;
    virtual gentool_save_outcome save(const gentool_save& request) = 0;
};

// Why `value` cannot be a gentools category or action name, or "" when it can: an ASCII Python
// identifier of at most max_gentool_name_length characters, not a keyword, not starting with
// an underscore (so no path separator, no `..`, nothing hidden).
std::string gentool_name_problem(std::string_view value);

// Why `request` cannot be saved (names, file set, sizes), or "" when its shape is fine.
std::string gentool_save_problem(const gentool_save& request);

}  // namespace ipybox::toolserver
