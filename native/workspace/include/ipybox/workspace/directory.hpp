#pragma once
// Host-side writes and removals in the workspace that never follow a symbolic link.
//
// Kernel code (sandboxed or not) can plant links anywhere in the workspace; ipybox itself runs
// outside the sandbox, so a path it writes through such a link would reach outside. A
// `directory` holds a descriptor of a directory ipybox trusts (the workspace, opened once) and
// resolves every path below it in one call where the system can refuse links on the whole path
// (Linux: openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS; macOS: O_NOFOLLOW_ANY), else component
// by component with openat(O_NOFOLLOW | O_DIRECTORY), as every POSIX system can. A link, a
// non-directory or `..` anywhere on the way is refused with unsafe_workspace_path naming the
// path; nothing is written or removed through it. The directory's own path (the root) is taken
// as given: it is the user's choice, not the kernel's.
//
// Relative paths are plain: no `..`, no leading `/`; `.` components are skipped.
// Thread-safety: a const directory may be used from several threads; each call is independent.
// Throws unsafe_workspace_path for links and foreign file types, std::system_error (naming the
// path) for other failures.
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ipybox::workspace {

class unsafe_workspace_path : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class directory {
  public:
    // Opens `root` itself (following links in `root`, which the caller trusts). With
    // `create`, creates it first (mkdir -p).
    static directory open_root(const std::filesystem::path& root, bool create = true);

    directory(directory&& other) noexcept;
    directory& operator=(directory&& other) noexcept;
    directory(const directory&) = delete;
    directory& operator=(const directory&) = delete;
    ~directory();

    const std::filesystem::path& path() const { return path_; }
    int descriptor() const { return fd_; }

    // The directory at `relative`, created with mode 0755 where missing (mkdir -p).
    directory make_directories(const std::filesystem::path& relative) const;
    // The existing directory at `relative`. Throws std::system_error (ENOENT) when missing.
    directory open(const std::filesystem::path& relative) const;
    // The same, or nullopt when something on the way is missing.
    std::optional<directory> open_if_exists(const std::filesystem::path& relative) const;

    // Writes `content` to a fresh temporary file beside `relative` and renames it over
    // `relative` (never through it: a link there is replaced, not followed). Parents are
    // created as make_directories does. Returns the absolute path written.
    std::filesystem::path write_file(const std::filesystem::path& relative,
                                     std::string_view content, unsigned mode = 0644) const;

    // Creates a new directory `<prefix>XXXXXX` (random suffix, mode 0700) in this directory
    // and returns its name.
    std::string make_unique_directory(std::string_view prefix) const;

    // Kind of the entry `relative` itself, links not followed (parents are resolved safely).
    enum class entry { none, directory, regular_file, symlink, other };
    entry kind(const std::filesystem::path& relative) const;

    // Renames `from` to `to`, both relative to this directory (replacing an empty directory or
    // a file at `to`, as renameat does).
    void rename(const std::filesystem::path& from, const std::filesystem::path& to) const;
    // Renames `from` to `to` unless an entry (a link included) is at `to`: then returns false
    // and leaves both as they are. Follows no link at either name. Atomic where the system can
    // rename without replacing (Linux: renameat2 RENAME_NOREPLACE; macOS: renameatx_np
    // RENAME_EXCL); elsewhere a link and an unlink, which cannot move a directory.
    bool rename_no_replace(const std::filesystem::path& from,
                           const std::filesystem::path& to) const;
    // Swaps two entries atomically; false where the system or the file system cannot (Linux:
    // renameat2 RENAME_EXCHANGE; macOS: renameatx_np RENAME_SWAP; never elsewhere).
    bool exchange(const std::filesystem::path& a, const std::filesystem::path& b) const;

    // Removes `relative` and everything below it without following any link: links inside
    // are removed as links. Refuses when `relative` itself, or a directory on the way to it,
    // is a link. A missing entry is not an error.
    void remove_tree(const std::filesystem::path& relative) const;

  private:
    directory(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
    directory resolve(const std::filesystem::path& relative, bool create) const;

    int fd_ = -1;
    std::filesystem::path path_;
};

// `file` relative to `root` when it lies strictly below it (lexically, no `..`), else nullopt.
std::optional<std::filesystem::path> relative_below(const std::filesystem::path& root,
                                                    const std::filesystem::path& file);

// Writes `file` (an absolute path) through a directory descriptor of `trusted_root` when `file`
// lies below it, so no link planted between the two is followed; otherwise `file`'s parent is
// the trusted root (a folder the user chose outside the workspace). Returns `file`.
std::filesystem::path write_file_beneath(const std::filesystem::path& trusted_root,
                                         const std::filesystem::path& file,
                                         std::string_view content);

}  // namespace ipybox::workspace
