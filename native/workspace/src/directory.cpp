#include "ipybox/workspace/directory.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "beneath.hpp"
#include "component_walk.hpp"
#include "ipybox/core/random.hpp"

namespace ipybox::workspace {
namespace {

namespace fs = std::filesystem;

// Deeper trees are not something ipybox writes; a kernel could build one to exhaust the stack.
constexpr int max_tree_depth = 256;

using detail::directory_flags;
using detail::fail;
using detail::fail_open;
using detail::refuse;

// Closes a descriptor at scope end.
struct fd_guard {
    int fd;
    ~fd_guard() {
        if (fd >= 0) ::close(fd);
    }
};

std::pair<fs::path, std::string> split_parent(const fs::path& relative) {
    auto parts = detail::components(relative);
    if (parts.empty()) refuse(relative, "it names the directory itself");
    std::string name = std::move(parts.back());
    parts.pop_back();
    fs::path parent;
    for (const auto& part : parts) parent /= part;
    return {parent, name};
}

void remove_contents(int dirfd, const fs::path& shown, int depth) {
    if (depth > max_tree_depth) fail(ELOOP, "too deep to remove:", shown);
    std::vector<std::pair<std::string, unsigned char>> entries;
    {
        const int listing = ::fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
        if (listing < 0) fail(errno, "cannot read", shown);
        DIR* stream = ::fdopendir(listing);
        if (stream == nullptr) {
            const int error = errno;
            ::close(listing);
            fail(error, "cannot read", shown);
        }
        while (const dirent* item = ::readdir(stream)) {
            const std::string name = item->d_name;
            if (name != "." && name != "..") entries.emplace_back(name, item->d_type);
        }
        ::closedir(stream);
    }
    for (const auto& [name, type] : entries) {
        // Only a real directory is descended into; O_NOFOLLOW makes a link swapped in since the
        // listing fail to open, and it is then removed as the link it is.
        if (type == DT_DIR || type == DT_UNKNOWN) {
            const int child = ::openat(dirfd, name.c_str(), directory_flags);
            if (child >= 0) {
                {
                    fd_guard closing{child};
                    remove_contents(child, shown / name, depth + 1);
                }
                if (::unlinkat(dirfd, name.c_str(), AT_REMOVEDIR) != 0) {
                    fail(errno, "cannot remove", shown / name);
                }
                continue;
            }
        }
        if (::unlinkat(dirfd, name.c_str(), 0) != 0 && errno != ENOENT) {
            fail(errno, "cannot remove", shown / name);
        }
    }
}

}  // namespace

directory directory::open_root(const fs::path& root, bool create) {
    if (create) fs::create_directories(root);
    const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) fail(errno, "cannot open", root);
    return directory(fd, root);
}

directory::directory(directory&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

directory& directory::operator=(directory&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = std::exchange(other.fd_, -1);
        path_ = std::move(other.path_);
    }
    return *this;
}

directory::~directory() {
    if (fd_ >= 0) ::close(fd_);
}

directory directory::resolve(const fs::path& relative, bool create) const {
    const auto parts = detail::components(relative);
    fs::path clean;
    for (const auto& part : parts) clean /= part;
    if (!parts.empty()) {
        const int fd = detail::open_directory_beneath(fd_, clean.c_str());
        if (fd >= 0) return directory(fd, path_ / clean);
        // On any refusal the walk below finds the component to blame for the message.
    }
    return directory(detail::walk_beneath(fd_, parts, path_, create), path_ / clean);
}

directory directory::open(const fs::path& relative) const {
    return resolve(relative, false);
}

directory directory::make_directories(const fs::path& relative) const {
    return resolve(relative, true);
}

std::optional<directory> directory::open_if_exists(const fs::path& relative) const {
    try {
        return open(relative);
    } catch (const std::system_error& e) {
        if (e.code() == std::errc::no_such_file_or_directory) return std::nullopt;
        throw;
    }
}

fs::path directory::write_file(const fs::path& relative, std::string_view content,
                               unsigned mode) const {
    const auto [parent_path, name] = split_parent(relative);
    const auto parent = make_directories(parent_path);
    auto target = parent.path() / name;
    const std::string temporary = "." + name + ".tmp-" + core::random_hex(6);
    // O_EXCL | O_NOFOLLOW: the name is fresh, so anything already there is foreign.
    const int fd = ::openat(parent.descriptor(), temporary.c_str(),
                            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0) fail(errno, "cannot create a file in", parent.path());
    const auto discard = [&](int error, const char* what) {
        ::unlinkat(parent.descriptor(), temporary.c_str(), 0);
        fail(error, what, target);
    };
    std::size_t written = 0;
    while (written < content.size()) {
        const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int error = errno;
            ::close(fd);
            discard(error, "cannot write");
        }
        written += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0) discard(errno, "cannot write");
    // renameat replaces whatever entry `name` is (a planted link included) without following it.
    if (::renameat(parent.descriptor(), temporary.c_str(), parent.descriptor(), name.c_str()) !=
        0) {
        discard(errno, "cannot replace");
    }
    return target;
}

std::string directory::make_unique_directory(std::string_view prefix) const {
    for (int attempt = 0; attempt < 100; ++attempt) {
        std::string name = std::string(prefix) + core::random_hex(3);
        if (::mkdirat(fd_, name.c_str(), 0700) == 0) return name;
        if (errno != EEXIST) fail(errno, "cannot create a directory in", path_);
    }
    fail(EEXIST, "cannot create a unique directory in", path_);
}

directory::entry directory::kind(const fs::path& relative) const {
    const auto [parent_path, name] = split_parent(relative);
    const auto parent = open_if_exists(parent_path);
    if (!parent) return entry::none;
    struct stat info {};
    if (::fstatat(parent->descriptor(), name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) return entry::none;
        fail(errno, "cannot inspect", parent->path() / name);
    }
    if (S_ISLNK(info.st_mode)) return entry::symlink;
    if (S_ISDIR(info.st_mode)) return entry::directory;
    if (S_ISREG(info.st_mode)) return entry::regular_file;
    return entry::other;
}

void directory::rename(const fs::path& from, const fs::path& to) const {
    const auto [from_parent, from_name] = split_parent(from);
    const auto [to_parent, to_name] = split_parent(to);
    const auto a = open(from_parent);
    const auto b = open(to_parent);
    if (::renameat(a.descriptor(), from_name.c_str(), b.descriptor(), to_name.c_str()) != 0) {
        fail(errno, "cannot rename " + (a.path() / from_name).string() + " to", b.path() / to_name);
    }
}

bool directory::rename_no_replace(const fs::path& from, const fs::path& to) const {
    const auto [from_parent, from_name] = split_parent(from);
    const auto [to_parent, to_name] = split_parent(to);
    const auto a = open(from_parent);
    const auto b = open(to_parent);
    int result = detail::rename_no_replace(a.descriptor(), from_name.c_str(), b.descriptor(),
                                           to_name.c_str());
    if (result != 0 && (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP)) {
        result = detail::rename_by_link(a.descriptor(), from_name.c_str(), b.descriptor(),
                                        to_name.c_str());
    }
    if (result == 0) return true;
    if (errno == EEXIST) return false;
    fail(errno, "cannot rename " + (a.path() / from_name).string() + " to", b.path() / to_name);
}

bool directory::exchange(const fs::path& first, const fs::path& second) const {
    const auto [a_parent, a_name] = split_parent(first);
    const auto [b_parent, b_name] = split_parent(second);
    const auto a = open(a_parent);
    const auto b = open(b_parent);
    if (detail::exchange_entries(a.descriptor(), a_name.c_str(), b.descriptor(), b_name.c_str()) ==
        0) {
        return true;
    }
    if (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP) return false;
    fail(errno, "cannot exchange " + (a.path() / a_name).string() + " with", b.path() / b_name);
}

void directory::remove_tree(const fs::path& relative) const {
    const auto [parent_path, name] = split_parent(relative);
    const auto parent = open_if_exists(parent_path);
    if (!parent) return;
    const auto shown = parent->path() / name;
    struct stat info {};
    if (::fstatat(parent->descriptor(), name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) return;
        fail(errno, "cannot inspect", shown);
    }
    if (S_ISLNK(info.st_mode)) refuse(shown, "it is a symbolic link");
    if (!S_ISDIR(info.st_mode)) {
        if (::unlinkat(parent->descriptor(), name.c_str(), 0) != 0)
            fail(errno, "cannot remove", shown);
        return;
    }
    const int fd = ::openat(parent->descriptor(), name.c_str(), directory_flags);
    if (fd < 0) fail_open(parent->descriptor(), name, errno, shown);
    {
        fd_guard closing{fd};
        remove_contents(fd, shown, 0);
    }
    if (::unlinkat(parent->descriptor(), name.c_str(), AT_REMOVEDIR) != 0) {
        fail(errno, "cannot remove", shown);
    }
}

std::optional<fs::path> relative_below(const fs::path& root, const fs::path& file) {
    auto relative = file.lexically_relative(root);
    const bool below = !relative.empty() && !relative.is_absolute() &&
                       relative.begin()->string() != ".." && relative != ".";
    if (!below) return std::nullopt;
    return relative;
}

fs::path write_file_beneath(const fs::path& trusted_root, const fs::path& file,
                            std::string_view content) {
    if (const auto relative = relative_below(trusted_root, file)) {
        return directory::open_root(trusted_root).write_file(*relative, content);
    }
    directory::open_root(file.parent_path()).write_file(file.filename(), content);
    return file;
}

}  // namespace ipybox::workspace
