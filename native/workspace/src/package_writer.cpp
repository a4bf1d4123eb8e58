#include "ipybox/workspace/package_writer.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <system_error>
#include <utility>

#include "ipybox/codegen/naming.hpp"
#include "ipybox/core/log.hpp"

namespace ipybox::workspace {
namespace {

namespace fs = std::filesystem;

// "<server>/a/b.py" -> "a/b.py", refusing anything that could leave the package directory.
fs::path package_relative_path(std::string_view server_name, const std::string& relative_path) {
    const auto refuse = [&](const char* why) {
        throw unsafe_package_path("refusing generated file path '" + relative_path + "': " + why);
    };
    if (relative_path.find('\0') != std::string::npos) refuse("it contains a NUL byte");
    if (relative_path.find('\\') != std::string::npos) refuse("it contains a backslash");
    fs::path inside;
    std::string_view rest = relative_path;
    bool first = true;
    for (;;) {
        const auto slash = rest.find('/');
        const std::string_view part = rest.substr(0, slash);
        if (part.empty() || part == "." || part == "..") refuse("empty, '.' or '..' component");
        if (first) {
            if (part != server_name) refuse("it is not inside the server's package directory");
            first = false;
        } else {
            inside /= std::string(part);
        }
        if (slash == std::string_view::npos) break;
        rest.remove_prefix(slash + 1);
    }
    if (inside.empty()) refuse("it names the package directory itself");
    return inside;
}

void remove_quietly(const directory& root, const fs::path& relative) {
    try {
        root.remove_tree(relative);
    } catch (const std::exception& e) {
        core::logger("workspace")
            ->warn("could not remove {}: {}", (root.path() / relative).string(), e.what());
    }
}

}  // namespace

fs::path write_generated_package(const directory& trusted_root, const fs::path& package_root,
                                 std::string_view server_name,
                                 const std::vector<codegen::generated_file>& files) {
    codegen::validate_server_name(server_name);
    std::vector<std::pair<fs::path, const std::string*>> plan;
    plan.reserve(files.size());
    for (const auto& file : files) {
        plan.emplace_back(package_relative_path(server_name, file.relative_path), &file.content);
    }

    // Refuses a link at package_root or on the way to it.
    const auto root = trusted_root.make_directories(package_root);
    const std::string name(server_name);
    fs::path target = root.path() / name;
    const auto existing = root.kind(name);
    if (existing == directory::entry::symlink) {
        throw unsafe_package_path("refusing to replace " + target.string() + ": it is a symlink");
    }
    const bool exists = existing != directory::entry::none;
    if (exists && existing != directory::entry::directory) {
        throw unsafe_package_path("refusing to replace " + target.string() +
                                  ": it is not a directory");
    }

    // A hidden name keeps the staging directory from being imported as a package meanwhile.
    const auto staging = root.make_unique_directory("." + name + ".new-");
    try {
        const auto staged = root.open(staging);
        for (const auto& [relative, content] : plan) staged.write_file(relative, *content);
        if (::fchmod(staged.descriptor(), 0755) != 0) {
            throw std::system_error(errno, std::generic_category(), "cannot chmod " + staging);
        }
        if (!exists) {
            root.rename(staging, name);
        } else if (root.exchange(staging, name)) {
            remove_quietly(root, staging);  // now holds the previous package
        } else {
            const auto previous = root.make_unique_directory("." + name + ".old-");
            root.rename(name, previous);  // replaces the empty placeholder directory
            try {
                root.rename(staging, name);
            } catch (...) {
                root.rename(previous, name);
                throw;
            }
            remove_quietly(root, previous);
        }
    } catch (...) {
        remove_quietly(root, staging);
        throw;
    }
    core::logger("workspace")->info("wrote {} files to {}", files.size(), target.string());
    return target;
}

fs::path write_generated_package(const fs::path& root_dir, std::string_view server_name,
                                 const std::vector<codegen::generated_file>& files) {
    return write_generated_package(directory::open_root(root_dir), "", server_name, files);
}

}  // namespace ipybox::workspace
