#include "ipybox/sandbox/placeholder_hold.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "ipybox/core/json_decode.hpp"
#include "ipybox/core/log.hpp"
#include "ipybox/workspace/bounded_read.hpp"
#include "ipybox/workspace/directory.hpp"

namespace ipybox::sandbox {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct recorded {
    placeholder item;
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
};

// A stable name for the workspace's files (FNV-1a, 64 bits): the same across builds and
// standard libraries, which std::hash is not.
std::string key_of(const fs::path& workspace) {
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (const unsigned char c : workspace.string()) {
        hash ^= c;
        hash *= 0x100000001b3ULL;
    }
    std::ostringstream out;
    out << std::hex << hash;
    return out.str();
}

std::string describe_errno(int error) {
    return std::strerror(error);
}

int open_lock_file(const fs::path& file) {
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        throw protection_unavailable("cannot open " + file.string() + ": " + describe_errno(errno));
    }
    return fd;
}

// The record is ipybox's own file in its state directory; one that cannot be read or parsed, or
// an entry of the wrong shape, is read as nothing (the placeholders it named are then left where
// they are, which loses no protection).
std::vector<recorded> read_record(const fs::path& file) {
    std::vector<recorded> out;
    json document;
    try {
        const auto text = workspace::read_regular_file(file, workspace::max_settings_file_bytes);
        if (!text) return out;
        document = core::decode_json(*text);
    } catch (const std::exception& e) {
        core::logger("sandbox")->warn("ignoring the placeholder record {}: {}", file.string(),
                                      e.what());
        return out;
    }
    const auto list = document.is_object() ? document.find("placeholders") : document.end();
    if (list == document.end() || !list->is_array()) return out;
    for (const auto& entry : *list) {
        if (!entry.is_object()) continue;
        const auto path = entry.find("path");
        const auto directory = entry.find("directory");
        const auto device = entry.find("device");
        const auto inode = entry.find("inode");
        if (path == entry.end() || !path->is_string() || directory == entry.end() ||
            !directory->is_boolean() || device == entry.end() || !device->is_number_unsigned() ||
            inode == entry.end() || !inode->is_number_unsigned()) {
            continue;
        }
        recorded item;
        item.item.relative = path->get<std::string>();
        item.item.directory = directory->get<bool>();
        item.device = device->get<std::uint64_t>();
        item.inode = inode->get<std::uint64_t>();
        if (!item.item.relative.empty() && item.item.relative.is_relative()) out.push_back(item);
    }
    return out;
}

void write_record(const fs::path& file, const fs::path& workspace,
                  const std::vector<recorded>& entries) {
    if (entries.empty()) {
        std::error_code ignored;
        fs::remove(file, ignored);
        return;
    }
    json list = json::array();
    for (const auto& entry : entries) {
        list.push_back({{"path", entry.item.relative.string()},
                        {"directory", entry.item.directory},
                        {"device", entry.device},
                        {"inode", entry.inode}});
    }
    const auto temporary = fs::path(file.string() + ".new");
    {
        std::ofstream out(temporary, std::ios::trunc);
        out << json{{"workspace", workspace.string()}, {"placeholders", list}}.dump(2) << "\n";
        if (!out) {
            throw protection_unavailable("cannot write " + temporary.string());
        }
    }
    fs::rename(temporary, file);
}

// The directory that holds `relative`, opened without following a link, or nullopt when
// something on the way is missing, a link or not a directory.
std::optional<workspace::directory> parent_of(const workspace::directory& root,
                                              const fs::path& relative) {
    try {
        return root.open_if_exists(relative.parent_path());
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::optional<struct stat> entry_status(const workspace::directory& parent, const fs::path& name) {
    struct stat info {};
    if (::fstatat(parent.descriptor(), name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
        return std::nullopt;
    }
    return info;
}

// Makes one placeholder; returns its record, or nullopt where nobody can create it (a
// read-only file system) or it appeared meanwhile (someone else's, or a real one).
std::optional<recorded> make(const workspace::directory& root, const placeholder& wanted) {
    const auto parent = parent_of(root, wanted.relative);
    if (!parent) return std::nullopt;  // the way changed since it was looked at: see next start
    const auto name = wanted.relative.filename();
    int made = 0;
    if (wanted.directory) {
        made = ::mkdirat(parent->descriptor(), name.c_str(), 0755);
    } else {
        const int fd = ::openat(parent->descriptor(), name.c_str(),
                                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        made = fd < 0 ? -1 : 0;
        if (fd >= 0) ::close(fd);
    }
    if (made != 0) {
        if (errno == EEXIST || errno == EROFS) return std::nullopt;
        throw protection_unavailable("cannot protect " + (root.path() / wanted.relative).string() +
                                     " from the sandboxed kernel: making its placeholder failed (" +
                                     describe_errno(errno) +
                                     "); the kernel does not start unprotected");
    }
    const auto info = entry_status(*parent, name);
    if (!info) return std::nullopt;
    return recorded{wanted, static_cast<std::uint64_t>(info->st_dev),
                    static_cast<std::uint64_t>(info->st_ino)};
}

// Removes what is still exactly as made: same inode, an empty file or an empty directory.
// Deepest first, so that a directory placeholder's own placeholders go before it.
void remove_recorded(const fs::path& workspace, std::vector<recorded> entries) {
    std::optional<workspace::directory> root;
    try {
        root.emplace(workspace::directory::open_root(workspace, false));
    } catch (const std::exception&) {
        return;  // the workspace is gone: nothing to clean
    }
    std::sort(entries.begin(), entries.end(), [](const recorded& a, const recorded& b) {
        return a.item.relative.string().size() > b.item.relative.string().size();
    });
    int removed = 0;
    for (const auto& entry : entries) {
        const auto parent = parent_of(*root, entry.item.relative);
        if (!parent) continue;
        const auto name = entry.item.relative.filename();
        const auto info = entry_status(*parent, name);
        if (!info || static_cast<std::uint64_t>(info->st_dev) != entry.device ||
            static_cast<std::uint64_t>(info->st_ino) != entry.inode) {
            continue;  // replaced: not ours any more
        }
        if (S_ISDIR(info->st_mode)) {
            if (::unlinkat(parent->descriptor(), name.c_str(), AT_REMOVEDIR) == 0) ++removed;
        } else if (S_ISREG(info->st_mode) && info->st_size == 0) {
            if (::unlinkat(parent->descriptor(), name.c_str(), 0) == 0) ++removed;
        }
    }
    core::logger("sandbox")->debug("removed {} protection placeholders in {}", removed,
                                   workspace.string());
}

// flock() that retries when a signal interrupts it.
int lock(int fd, int operation) {
    int result = 0;
    do {
        result = ::flock(fd, operation);
    } while (result != 0 && errno == EINTR);
    return result;
}

}  // namespace

std::vector<placeholder> missing_placeholders(const fs::path& workspace,
                                              const std::vector<fs::path>& protected_paths,
                                              const std::set<fs::path>& directories) {
    std::set<placeholder> wanted;
    const auto root = workspace::directory::open_root(workspace, false);
    for (const auto& path : protected_paths) {
        const auto relative = path.lexically_relative(workspace);
        if (relative.empty() || *relative.begin() == ".." || relative == ".") continue;
        const std::vector<fs::path> parts(relative.begin(), relative.end());
        fs::path current;
        for (std::size_t i = 0; i < parts.size(); ++i) {
            current /= parts[i];
            const bool last = i + 1 == parts.size();
            workspace::directory::entry kind = workspace::directory::entry::other;
            try {
                kind = root.kind(current);
            } catch (const workspace::unsafe_workspace_path&) {
                break;  // a link on the way: srt binds the link itself
            } catch (const std::system_error& e) {
                throw protection_unavailable("cannot protect " + path.string() +
                                             " from the sandboxed kernel: " + e.what());
            }
            if (kind == workspace::directory::entry::none) {
                wanted.insert({current, !last || directories.count(relative) != 0});
                break;
            }
            // An existing entry needs nothing; nothing can be made below a file or a link.
            if (kind != workspace::directory::entry::directory) break;
        }
    }
    return {wanted.begin(), wanted.end()};
}

placeholder_hold::placeholder_hold(fs::path workspace, const fs::path& holds_directory)
    : workspace_(std::move(workspace)) {
    std::error_code error;
    fs::create_directories(holds_directory, error);
    fs::permissions(holds_directory, fs::perms::owner_all, error);
    base_ = holds_directory / key_of(workspace_);
    holders_fd_ = open_lock_file(fs::path(base_.string() + ".holders"));
    try {
        lock_fd_ = open_lock_file(fs::path(base_.string() + ".lock"));
    } catch (...) {
        ::close(holders_fd_);
        throw;
    }
    // Waits only while a last holder is removing placeholders (see the destructor).
    lock(holders_fd_, LOCK_SH);
}

placeholder_hold::~placeholder_hold() {
    std::lock_guard guard(mutex_);
    lock(lock_fd_, LOCK_EX);
    // Trading the shared lock for an exclusive one drops it first: if another holder has one,
    // this fails and the placeholders stay for it.
    if (lock(holders_fd_, LOCK_EX | LOCK_NB) == 0) {
        try {
            remove_recorded(workspace_, read_record(record_file()));
            write_record(record_file(), workspace_, {});
        } catch (const std::exception& e) {
            core::logger("sandbox")->warn("cannot remove the protection placeholders of {}: {}",
                                          workspace_.string(), e.what());
        }
    }
    ::close(holders_fd_);
    ::close(lock_fd_);
}

fs::path placeholder_hold::record_file() const {
    return fs::path(base_.string() + ".json");
}

void placeholder_hold::ensure(const std::vector<fs::path>& protected_paths,
                              const std::set<fs::path>& directories) {
    std::lock_guard guard(mutex_);
    lock(lock_fd_, LOCK_EX);
    struct unlock_at_end {
        int fd;
        ~unlock_at_end() { lock(fd, LOCK_UN); }
    } unlocking{lock_fd_};
    auto entries = read_record(record_file());
    const auto root = workspace::directory::open_root(workspace_, false);
    bool changed = false;
    for (const auto& wanted : missing_placeholders(workspace_, protected_paths, directories)) {
        auto made = make(root, wanted);
        if (!made) continue;
        std::erase_if(
            entries, [&](const recorded& entry) { return entry.item.relative == wanted.relative; });
        entries.push_back(*made);
        changed = true;
    }
    if (changed) write_record(record_file(), workspace_, entries);
}

}  // namespace ipybox::sandbox
