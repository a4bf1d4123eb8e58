#include "ipybox/gentools/user_library_writer.hpp"

#include <system_error>

#include "ipybox/core/log.hpp"
#include "ipybox/toolserver/tool_invoker.hpp"
#include "ipybox/workspace/directory.hpp"

namespace ipybox::app {
namespace {

using toolserver::gentool_save_outcome;
using workspace::directory;
namespace error_type = toolserver::error_type;

const char* kind_name(directory::entry kind) {
    switch (kind) {
        case directory::entry::symlink:
            return "a symbolic link";
        case directory::entry::regular_file:
            return "a file";
        default:
            return "not a folder";
    }
}

}  // namespace

gentool_save_outcome user_library_writer::save(const toolserver::gentool_save& request) {
    if (auto problem = toolserver::gentool_save_problem(request); !problem.empty()) {
        return gentool_save_outcome::failure(error_type::bad_request, problem);
    }
    const std::filesystem::path category = request.category;
    const auto action = category / request.name;
    const auto shown = (root_ / action).string();
    std::lock_guard lock(mutex_);
    try {
        const auto root = directory::open_root(root_, true);
        for (const auto& folder : {category, action}) {
            const auto kind = root.kind(folder);
            if (kind != directory::entry::none && kind != directory::entry::directory) {
                return gentool_save_outcome::failure(
                    error_type::unsafe_path, (root_ / folder).string() + " is " + kind_name(kind) +
                                                 "; nothing was saved (remove it, or choose "
                                                 "another name)");
            }
        }
        const auto category_folder = root.make_directories(category);
        const auto package = category_folder.make_directories(request.name);
        if (!request.overwrite) {
            for (const auto& [file_name, text] : request.files) {
                if (package.kind(file_name) != directory::entry::none) {
                    return gentool_save_outcome::failure(
                        error_type::exists,
                        shown + "/" + file_name +
                            " already exists; choose another name, or pass overwrite=True to "
                            "replace the saved action's files");
                }
            }
        }
        for (const auto& [file_name, text] : request.files) package.write_file(file_name, text);
        // An existing category __init__.py (or anything else of that name) is left as it is.
        if (request.category_init && category_folder.kind("__init__.py") == directory::entry::none)
            category_folder.write_file("__init__.py", *request.category_init);
    } catch (const workspace::unsafe_workspace_path& e) {
        return gentool_save_outcome::failure(error_type::unsafe_path,
                                             std::string(e.what()) + "; nothing more was saved");
    } catch (const std::system_error& e) {
        return gentool_save_outcome::failure(error_type::server_error,
                                             "cannot save " + shown + ": " + e.what());
    }
    core::logger("app")->info("saved the code action gentools.{}.{} to the user library ({})",
                              request.category, request.name, shown);
    return gentool_save_outcome::saved(root_ / action);
}

}  // namespace ipybox::app
