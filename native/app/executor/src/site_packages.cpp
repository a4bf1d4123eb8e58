#include "site_packages.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <system_error>

#include "ipybox/core/log.hpp"
#include "ipybox/workspace/directory.hpp"

namespace ipybox::app {
namespace {

namespace fs = std::filesystem;
using workspace::directory;

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::system_error(errno, std::generic_category(), "cannot read " + path.string());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

unsigned mode_of(const fs::path& path) {
    const auto perms = fs::symlink_status(path).permissions();
    return (perms & fs::perms::owner_exec) != fs::perms::none ? 0755 : 0644;
}

// Copies the staged tree `source` (ours, private) to `relative` below `target`.
void copy_tree(const fs::path& source, const directory& target, const fs::path& relative) {
    for (auto it = fs::recursive_directory_iterator(source);
         it != fs::recursive_directory_iterator(); ++it) {
        const auto inside = relative / it->path().lexically_relative(source);
        const auto status = it->symlink_status();
        if (fs::is_symlink(status)) {
            const auto [parent_path, name] = std::pair{inside.parent_path(), inside.filename()};
            const auto parent = target.make_directories(parent_path);
            const auto destination = fs::read_symlink(it->path());
            if (::symlinkat(destination.c_str(), parent.descriptor(), name.c_str()) != 0) {
                throw std::system_error(errno, std::generic_category(),
                                        "cannot create link " + (parent.path() / name).string());
            }
        } else if (fs::is_directory(status)) {
            target.make_directories(inside);
        } else if (fs::is_regular_file(status)) {
            target.write_file(inside, read_file(it->path()), mode_of(it->path()));
        }
    }
}

// Puts the staged folder `name` in place of `site/name` in one step.
void replace_folder(const fs::path& staged, const directory& site, const std::string& name) {
    const auto existing = site.kind(name);
    if (existing == directory::entry::symlink) {
        throw workspace::unsafe_workspace_path(
            "refusing to replace " + (site.path() / name).string() + ": it is a symbolic link");
    }
    const auto fresh = site.make_unique_directory("." + name + ".new-");
    try {
        copy_tree(staged, site, fresh);
        if (existing == directory::entry::none) {
            site.rename(fresh, name);
            return;
        }
        if (existing == directory::entry::directory && site.exchange(fresh, name)) {
            site.remove_tree(fresh);  // now the previous version
            return;
        }
        site.remove_tree(name);  // refuses a link swapped in since kind()
        site.rename(fresh, name);
    } catch (...) {
        try {
            site.remove_tree(fresh);
        } catch (const std::exception& e) {
            core::logger("app")->warn("could not clean up {}: {}", (site.path() / fresh).string(),
                                      e.what());
        }
        throw;
    }
}

}  // namespace

void publish_site_packages(const fs::path& staging, const fs::path& workspace,
                           const fs::path& relative_target) {
    const auto site = directory::open_root(workspace).make_directories(relative_target);
    for (const auto& entry : fs::directory_iterator(staging)) {
        const auto name = entry.path().filename().string();
        const auto status = entry.symlink_status();
        if (fs::is_directory(status) && name == "bin") {
            copy_tree(entry.path(), site, name);  // scripts of other packages stay
        } else if (fs::is_directory(status)) {
            replace_folder(entry.path(), site, name);
        } else if (fs::is_regular_file(status)) {
            site.write_file(name, read_file(entry.path()), mode_of(entry.path()));
        }
    }
}

}  // namespace ipybox::app
