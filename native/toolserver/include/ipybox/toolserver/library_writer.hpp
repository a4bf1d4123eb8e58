#pragma once
// Saving a code action into the user's gentools library on behalf of kernel code that may not
// write there itself (a sandboxed kernel: POST /gentools, see routes.hpp). The tool server checks
// the request's shape and asks the approval gate; a library_writer, implemented by the
// application, does the writing. Everything in a request comes from kernel code and is hostile
// until checked: the names are checked here, and again by the writer before it writes.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "ipybox/approval/request.hpp"

namespace ipybox::toolserver {

// The files of one action, by name: exactly these, each at most max_gentool_file_bytes (as is
// the category's __init__.py). The approval question shows every file in full, so this is also
// the most a person is asked to read per file.
inline constexpr const char* gentool_file_names[] = {"__init__.py", "api.py", "impl.py"};
inline constexpr std::size_t max_gentool_file_bytes = 64 * 1024;
inline constexpr std::size_t max_gentool_name_length = 64;

// What a save writes: the approval request that a person saw (approval/request.hpp), so that
// exactly what was approved is what is written.
using gentool_save = approval::save_action;

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

// Thread-safety: save() may be called from several threads at once. It runs on the tool server's
// loop: a save writes at most four files of max_gentool_file_bytes, and must not wait for
// anything else.
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
