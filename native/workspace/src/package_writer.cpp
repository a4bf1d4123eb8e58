#include "ipybox/workspace/package_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>   // renameat2
#include <cstdlib>  // mkdtemp
#include <system_error>
#include <utility>

#include "ipybox/codegen/naming.hpp"
#include "ipybox/core/log.hpp"

namespace ipybox::workspace {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void throw_errno(const std::string& what, const fs::path& path) {
    throw std::system_error(errno, std::generic_category(), what + " " + path.string());
}

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

void write_file(const fs::path& path, const std::string& content) {
    // O_EXCL | O_NOFOLLOW: the staging directory is fresh, so anything already there is foreign.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) throw_errno("cannot create", path);
    std::size_t written = 0;
    while (written < content.size()) {
        const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int saved = errno;
            ::close(fd);
            errno = saved;
            throw_errno("cannot write", path);
        }
        written += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0) throw_errno("cannot write", path);
}

// A fresh hidden directory `<root>/.<server>.<kind>-XXXXXX`: the leading dot keeps it from
// being imported as a package while it exists.
fs::path make_staging_directory(const fs::path& root, std::string_view server_name,
                                const char* kind) {
    std::string pattern =
        (root / ("." + std::string(server_name) + "." + kind + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) throw_errno("cannot create a directory in", root);
    return pattern;
}

// Swaps two directory entries atomically. Returns false where the file system cannot.
bool exchange_entries(const fs::path& a, const fs::path& b) {
    if (::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) == 0) return true;
    if (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP) return false;
    throw_errno("cannot exchange " + a.string() + " with", b);
}

void remove_quietly(const fs::path& path) {
    // remove_all deletes symlinks themselves, never what they point to.
    std::error_code error;
    fs::remove_all(path, error);
    if (error) {
        core::logger("workspace")->warn("could not remove {}: {}", path.string(), error.message());
    }
}

}  // namespace

fs::path write_generated_package(const fs::path& root_dir, std::string_view server_name,
                                 const std::vector<codegen::generated_file>& files) {
    codegen::validate_server_name(server_name);
    std::vector<std::pair<fs::path, const std::string*>> plan;
    plan.reserve(files.size());
    for (const auto& file : files) {
        plan.emplace_back(package_relative_path(server_name, file.relative_path), &file.content);
    }

    fs::create_directories(root_dir);
    fs::path target = root_dir / std::string(server_name);
    const auto status = fs::symlink_status(target);
    const bool exists = status.type() != fs::file_type::not_found;
    if (fs::is_symlink(status)) {
        throw unsafe_package_path("refusing to replace " + target.string() + ": it is a symlink");
    }
    if (exists && !fs::is_directory(status)) {
        throw unsafe_package_path("refusing to replace " + target.string() +
                                  ": it is not a directory");
    }

    const fs::path staging = make_staging_directory(root_dir, server_name, "new");
    try {
        for (const auto& [relative, content] : plan) {
            fs::create_directories(staging / relative.parent_path());
            write_file(staging / relative, *content);
        }
        fs::permissions(staging, fs::perms(0755));
        if (!exists) {
            fs::rename(staging, target);
        } else if (exchange_entries(staging, target)) {
            remove_quietly(staging);  // now holds the previous package
        } else {
            const fs::path previous = make_staging_directory(root_dir, server_name, "old");
            try {
                fs::rename(target, previous);  // replaces the empty placeholder directory
            } catch (...) {
                remove_quietly(previous);
                throw;
            }
            try {
                fs::rename(staging, target);
            } catch (...) {
                fs::rename(previous, target);
                throw;
            }
            remove_quietly(previous);
        }
    } catch (...) {
        remove_quietly(staging);
        throw;
    }
    core::logger("workspace")->info("wrote {} files to {}", files.size(), target.string());
    return target;
}

}  // namespace ipybox::workspace
