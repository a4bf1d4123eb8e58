#include "ipybox/workspace/bounded_read.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

#include "ipybox/core/log.hpp"

namespace ipybox::workspace {
namespace {

namespace fs = std::filesystem;

struct fd_guard {
    int fd;
    ~fd_guard() {
        if (fd >= 0) ::close(fd);
    }
};

const char* kind_name(mode_t mode) {
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISLNK(mode)) return "a symbolic link";
    return "not a regular file";
}

[[noreturn]] void refuse(const fs::path& shown, const std::string& why) {
    throw unreadable_file("ipybox does not read " + shown.string() + ": " + why);
}

// Opens `name` in `dirfd` for reading without blocking on a FIFO; nullopt when it is missing.
std::optional<int> open_file(int dirfd, const std::string& name, link_rule links,
                             const fs::path& shown) {
    const int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
                      (links == link_rule::refuse ? O_NOFOLLOW : 0);
    const int fd = ::openat(dirfd, name.c_str(), flags);
    if (fd >= 0) return fd;
    const int error = errno;
    if (error == ENOENT || error == ENOTDIR) return std::nullopt;
    if (error == ELOOP && links == link_rule::refuse) refuse(shown, "it is a symbolic link");
    throw std::system_error(error, std::generic_category(), "cannot open " + shown.string());
}

std::string read_open_file(int fd, std::size_t max_bytes, const fs::path& shown) {
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
        throw std::system_error(errno, std::generic_category(), "cannot inspect " + shown.string());
    }
    if (!S_ISREG(info.st_mode)) refuse(shown, std::string("it is ") + kind_name(info.st_mode));
    const auto too_large = [&] {
        refuse(shown, "it is larger than " + std::to_string(max_bytes) + " bytes");
    };
    if (static_cast<std::size_t>(info.st_size) > max_bytes) too_large();
    std::string content(static_cast<std::size_t>(info.st_size), '\0');
    std::size_t filled = 0;
    while (true) {
        // One byte of room past the limit tells a file that grew beyond it from one that ends.
        if (filled == content.size()) content.resize(std::min(max_bytes + 1, filled * 2 + 4096));
        const ssize_t got = ::read(fd, content.data() + filled, content.size() - filled);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            throw std::system_error(errno, std::generic_category(),
                                    "cannot read " + shown.string());
        }
        if (got == 0) break;
        filled += static_cast<std::size_t>(got);
        if (filled > max_bytes) too_large();
    }
    content.resize(filled);
    return content;
}

}  // namespace

std::optional<std::string> read_regular_file(const directory& root, const fs::path& relative,
                                             std::size_t max_bytes) {
    const auto name = relative.filename().string();
    if (name.empty() || name == "." || name == "..") {
        refuse(root.path() / relative, "it does not name a file");
    }
    const auto parent = root.open_if_exists(relative.parent_path());
    if (!parent) return std::nullopt;
    const auto shown = parent->path() / name;
    const auto fd = open_file(parent->descriptor(), name, link_rule::refuse, shown);
    if (!fd) return std::nullopt;
    fd_guard closing{*fd};
    return read_open_file(*fd, max_bytes, shown);
}

std::optional<std::string> read_regular_file(const fs::path& path, std::size_t max_bytes,
                                             link_rule links) {
    const auto name = path.filename().string();
    if (name.empty() || name == "." || name == "..") refuse(path, "it does not name a file");
    const auto fd = open_file(AT_FDCWD, path.string(), links, path);
    if (!fd) return std::nullopt;
    fd_guard closing{*fd};
    return read_open_file(*fd, max_bytes, path);
}

std::optional<std::string> read_file_beneath(const fs::path& trusted_root, const fs::path& file,
                                             std::size_t max_bytes) {
    const auto relative = relative_below(trusted_root, file);
    if (!relative) return read_regular_file(file, max_bytes);
    return read_regular_file(directory::open_root(trusted_root, false), *relative, max_bytes);
}

std::vector<listed_entry> list_entries(const directory& folder, std::size_t max_entries) {
    const int fd = ::openat(folder.descriptor(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        throw std::system_error(errno, std::generic_category(),
                                "cannot list " + folder.path().string());
    }
    DIR* stream = ::fdopendir(fd);
    if (stream == nullptr) {
        const int error = errno;
        ::close(fd);
        throw std::system_error(error, std::generic_category(),
                                "cannot list " + folder.path().string());
    }
    std::vector<listed_entry> entries;
    bool cut = false;
    while (const dirent* item = ::readdir(stream)) {
        const std::string name = item->d_name;
        if (name == "." || name == "..") continue;
        if (entries.size() == max_entries) {
            cut = true;
            break;
        }
        struct stat info {};
        auto kind = directory::entry::other;
        if (::fstatat(fd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
            kind = directory::entry::none;  // gone since readdir saw it
        } else if (S_ISLNK(info.st_mode)) {
            kind = directory::entry::symlink;
        } else if (S_ISDIR(info.st_mode)) {
            kind = directory::entry::directory;
        } else if (S_ISREG(info.st_mode)) {
            kind = directory::entry::regular_file;
        }
        if (kind != directory::entry::none) entries.push_back({name, kind});
    }
    ::closedir(stream);
    if (cut) {
        core::logger("workspace")
            ->warn("{} has more than {} entries; only the first {} are looked at",
                   folder.path().string(), max_entries, max_entries);
    }
    std::sort(entries.begin(), entries.end(),
              [](const listed_entry& a, const listed_entry& b) { return a.name < b.name; });
    return entries;
}

}  // namespace ipybox::workspace
