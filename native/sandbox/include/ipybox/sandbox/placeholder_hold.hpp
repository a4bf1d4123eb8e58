#pragma once
// Protections that outlive every kernel: ipybox's own mount points for protected workspace
// paths that do not exist.
//
// bubblewrap keeps a sandboxed process from creating a path only by mounting something
// read-only there, and a mount needs a mount point on the host. Left to itself, srt makes those
// (an empty file or directory) for each kernel and deletes them when that kernel's srt process
// ends, although the other kernels of the workspace (the pre-started spare) rely on them:
// deleting a mount point on the host detaches the mount in every other sandbox. A kernel that
// died took the spare's protection of .mcp.json, CLAUDE.md, .envrc, ... with it.
//
// So ipybox makes them itself, before any sandboxed kernel of the workspace starts, and srt finds
// them existing (it binds an existing path read-only and never removes it):
//   - ensure() makes every missing placeholder for the given protected paths and records it
//     (path, kind, device, inode) in <holds>/<key>.json, under an exclusive lock (<key>.lock).
//     Called before each kernel's start: a placeholder the user deleted meanwhile comes back.
//   - A hold keeps a shared lock on <key>.holders for its lifetime, whichever ipybox process
//     holds it. The destructor removes the recorded placeholders only when it can take that lock
//     exclusively (no other holder: no sandboxed kernel of the workspace runs), and only those
//     still as made (same inode, still empty), deepest first.
//   - An ipybox killed with SIGKILL leaves its placeholders and record: the next holder adopts
//     them (they protect as before) and the last one removes them.
// A placeholder is a directory where a protected path lies beneath the missing component
// (.claude for .claude/settings.json) or where the path is a directory by nature (`directories`),
// else an empty file. Nothing is made through a link or below a file: srt binds an existing
// link or file as it is, which needs no mount point of ours.
//
// Only for bubblewrap (sandbox_platform::linux): Seatbelt denies a path by its name, and on
// darwin the executor makes no hold.
//
// Thread-safety: ensure() may be called from several threads. Throws protection_unavailable
// when a placeholder cannot be made (the kernel must then not start: fails closed).
#include <filesystem>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace ipybox::sandbox {

class protection_unavailable : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct placeholder {
    std::filesystem::path relative;  // to the workspace
    bool directory = false;
    bool operator<(const placeholder& other) const {
        return relative != other.relative ? relative < other.relative : directory < other.directory;
    }
};

// The placeholders `protected_paths` (absolute, inside `workspace`; others are ignored) need
// now: at each path's first missing component. Reads the file system, changes nothing.
std::vector<placeholder> missing_placeholders(
    const std::filesystem::path& workspace,
    const std::vector<std::filesystem::path>& protected_paths,
    const std::set<std::filesystem::path>& directories);

class placeholder_hold {
  public:
    // `holds_directory`: a folder no kernel can write (ipybox's state). Created if missing.
    // Throws protection_unavailable when the lock files cannot be opened.
    placeholder_hold(std::filesystem::path workspace, const std::filesystem::path& holds_directory);
    ~placeholder_hold();
    placeholder_hold(const placeholder_hold&) = delete;
    placeholder_hold& operator=(const placeholder_hold&) = delete;

    // Makes and records what `protected_paths` need (missing_placeholders). Throws
    // protection_unavailable naming the path and the reason.
    void ensure(const std::vector<std::filesystem::path>& protected_paths,
                const std::set<std::filesystem::path>& directories);

    // The record's file, for tests and doctor.
    std::filesystem::path record_file() const;

  private:
    std::filesystem::path workspace_;
    std::filesystem::path base_;  // <holds>/<key>, without extension
    int holders_fd_ = -1;
    int lock_fd_ = -1;
    std::mutex mutex_;
};

}  // namespace ipybox::sandbox
