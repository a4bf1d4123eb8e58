// Renames that never replace (directory::rename_no_replace): the platform's atomic call
// (beneath.hpp), the link-and-unlink every platform falls back on, and the directory method over
// them. An entry at the new name, a link included, is never replaced nor written through.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <functional>
#include <test_paths.hpp>

#include "beneath.hpp"
#include "file_helpers.hpp"
#include "ipybox/workspace/directory.hpp"

namespace fs = std::filesystem;
using namespace ipybox::workspace;
using ipybox::testing::read_text;
using ipybox::testing::write_text;

namespace {

// One way to rename without replacing: true when it moved, false when the new name exists
// (EEXIST); anything else fails the test.
using rename_way = std::function<bool(const fs::path& folder, const char* from, const char* to)>;

bool by_call(int (*call)(int, const char*, int, const char*), const fs::path& folder,
             const char* from, const char* to) {
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    const int result = call(fd, from, fd, to);
    const int error = errno;
    ::close(fd);
    if (result == 0) return true;
    CHECK(error == EEXIST);
    return false;
}

// The ways this build has: the platform's own call only where it has one.
std::vector<std::pair<std::string, rename_way>> ways() {
    std::vector<std::pair<std::string, rename_way>> out;
    const auto probe = ipybox::testing::fresh_directory("rename-probe");
    write_text(probe / "a", "a");
    const int fd = ::open(probe.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    const bool platform_call = detail::rename_no_replace(fd, "a", fd, "b") == 0;
    ::close(fd);
    if (platform_call) {
        out.emplace_back("the platform's call",
                         [](const fs::path& f, const char* a, const char* b) {
                             return by_call(detail::rename_no_replace, f, a, b);
                         });
    }
    out.emplace_back("link and unlink", [](const fs::path& f, const char* a, const char* b) {
        return by_call(detail::rename_by_link, f, a, b);
    });
    out.emplace_back("directory::rename_no_replace",
                     [](const fs::path& f, const char* a, const char* b) {
                         return directory::open_root(f, false).rename_no_replace(a, b);
                     });
    return out;
}

}  // namespace

TEST_SUITE("workspace.rename_no_replace") {
    TEST_CASE("a rename onto an existing file fails with EEXIST and leaves both files") {
        for (const auto& [name, way] : ways()) {
            CAPTURE(name);
            const auto folder = ipybox::testing::fresh_directory("rename-exists");
            write_text(folder / "old", "old");
            write_text(folder / "new", "new");
            CHECK_FALSE(way(folder, "old", "new"));
            CHECK(read_text(folder / "old") == "old");
            CHECK(read_text(folder / "new") == "new");
        }
    }

    TEST_CASE("a rename onto a missing name moves the file itself (control)") {
        for (const auto& [name, way] : ways()) {
            CAPTURE(name);
            const auto folder = ipybox::testing::fresh_directory("rename-moves");
            write_text(folder / "old", "old");
            REQUIRE(::chmod((folder / "old").c_str(), 0600) == 0);
            struct stat before {};
            REQUIRE(::lstat((folder / "old").c_str(), &before) == 0);
            CHECK(way(folder, "old", "new"));
            CHECK_FALSE(fs::exists(fs::symlink_status(folder / "old")));
            struct stat after {};
            REQUIRE(::lstat((folder / "new").c_str(), &after) == 0);
            CHECK(after.st_ino == before.st_ino);  // moved, not copied
            CHECK((after.st_mode & 0777) == 0600);
            CHECK(after.st_nlink == 1);
        }
    }

    TEST_CASE("a link at the new name counts as an entry: kept, and nothing written through it") {
        for (const auto& [name, way] : ways()) {
            CAPTURE(name);
            const auto folder = ipybox::testing::fresh_directory("rename-link-target");
            const auto outside = ipybox::testing::fresh_directory("rename-link-outside");
            write_text(folder / "old", "old");
            // A dangling link too: following it would create the outside file.
            fs::create_symlink(outside / "absent", folder / "dangling");
            CHECK_FALSE(way(folder, "old", "dangling"));
            CHECK(fs::is_symlink(folder / "dangling"));
            CHECK_FALSE(fs::exists(outside / "absent"));
            CHECK(read_text(folder / "old") == "old");
        }
    }

    TEST_CASE("a link at the old name moves as the link, not what it points to") {
        for (const auto& [name, way] : ways()) {
            CAPTURE(name);
            const auto folder = ipybox::testing::fresh_directory("rename-link-source");
            write_text(folder / "target", "target");
            fs::create_symlink(folder / "target", folder / "old");
            CHECK(way(folder, "old", "new"));
            CHECK(fs::is_symlink(folder / "new"));
            CHECK(read_text(folder / "target") == "target");
            struct stat info {};
            REQUIRE(::lstat((folder / "target").c_str(), &info) == 0);
            CHECK(info.st_nlink == 1);
        }
    }
}
