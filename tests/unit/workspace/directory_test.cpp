// workspace::directory: writes and removals below a trusted root never follow a link.
// Each attack (a link planted where ipybox writes) has a control with a real directory.
#include "ipybox/workspace/directory.hpp"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <fstream>
#include <set>
#include <sstream>
#include <test_paths.hpp>

#include "file_helpers.hpp"

namespace fs = std::filesystem;
using namespace ipybox::workspace;

namespace {

std::string read(const fs::path& path) {
    return ipybox::testing::read_text(path);
}

void write(const fs::path& path, const std::string& content) {
    ipybox::testing::write_text(path, content);
}

std::set<std::string> entries(const fs::path& dir) {
    return ipybox::testing::entry_names(dir);
}

// A workspace and, beside it, a folder the kernel must not reach with a precious file in it.
struct layout {
    fs::path base;
    fs::path workspace;
    fs::path outside;

    explicit layout(const char* name)
        : base(ipybox::testing::fresh_directory(name)),
          workspace(base / "workspace"),
          outside(base / "outside") {
        fs::create_directories(workspace);
        write(outside / "precious.txt", "precious\n");
    }
    void untouched() const {
        CHECK(entries(outside) == std::set<std::string>{"precious.txt"});
        CHECK(read(outside / "precious.txt") == "precious\n");
    }
};

}  // namespace

TEST_SUITE("workspace.directory") {
    TEST_CASE("write_file creates the parents and the file (control)") {
        const layout l("dir-write-control");
        const auto root = directory::open_root(l.workspace);
        const auto written = root.write_file(".ipybox/outputs/out.txt", "full output");
        CHECK(written == l.workspace / ".ipybox" / "outputs" / "out.txt");
        CHECK(read(written) == "full output");
        CHECK(entries(l.workspace / ".ipybox" / "outputs") == std::set<std::string>{"out.txt"});
        root.write_file(".ipybox/outputs/out.txt", "replaced");
        CHECK(read(written) == "replaced");
    }

    TEST_CASE("a link planted on the way is refused, naming it, and nothing appears outside") {
        for (const char* planted : {".ipybox", ".ipybox/outputs"}) {
            CAPTURE(planted);
            const layout l("dir-write-link");
            fs::create_directories((l.workspace / planted).parent_path());
            fs::create_directory_symlink(l.outside, l.workspace / planted);
            const auto root = directory::open_root(l.workspace);
            CHECK_THROWS_WITH_AS(
                root.write_file(".ipybox/outputs/out.txt", "leak"),
                doctest::Contains(
                    ((l.workspace / planted).string() + ": it is a symbolic link").c_str()),
                unsafe_workspace_path);
            CHECK_THROWS_AS(root.make_directories(".ipybox/outputs/deeper"), unsafe_workspace_path);
            CHECK(fs::is_symlink(l.workspace / planted));
            l.untouched();
        }
    }

    TEST_CASE("a link at the file name itself is replaced by the file, not written through") {
        const layout l("dir-write-final-link");
        fs::create_directories(l.workspace / "images");
        fs::create_symlink(l.outside / "precious.txt", l.workspace / "images" / "a.png");
        directory::open_root(l.workspace).write_file("images/a.png", "png bytes");
        CHECK_FALSE(fs::is_symlink(l.workspace / "images" / "a.png"));
        CHECK(read(l.workspace / "images" / "a.png") == "png bytes");
        l.untouched();
    }

    TEST_CASE("a file where a directory is expected is refused") {
        const layout l("dir-not-dir");
        write(l.workspace / ".ipybox", "a file");
        CHECK_THROWS_WITH_AS(directory::open_root(l.workspace).make_directories(".ipybox/outputs"),
                             doctest::Contains("it is not a directory"), unsafe_workspace_path);
    }

    TEST_CASE("'..' and absolute paths are refused") {
        const layout l("dir-dotdot");
        const auto root = directory::open_root(l.workspace);
        CHECK_THROWS_AS(root.write_file("../outside/x.txt", "leak"), unsafe_workspace_path);
        CHECK_THROWS_AS(root.write_file((l.outside / "x.txt").string(), "leak"),
                        unsafe_workspace_path);
        l.untouched();
    }

    TEST_CASE("remove_tree removes links inside as links and never what they point to") {
        const layout l("dir-remove-inside");
        write(l.workspace / "mcptools" / "srv" / "a.py", "A = 1\n");
        write(l.workspace / "mcptools" / "srv" / "sub" / "b.py", "B = 1\n");
        fs::create_directory_symlink(l.outside, l.workspace / "mcptools" / "srv" / "escape");
        fs::create_symlink(l.outside / "precious.txt", l.workspace / "mcptools" / "srv" / "f");
        directory::open_root(l.workspace).remove_tree("mcptools/srv");
        CHECK(entries(l.workspace / "mcptools").empty());
        l.untouched();
    }

    TEST_CASE("remove_tree refuses a link at the tree or on the way to it") {
        {
            const layout l("dir-remove-link-tree");
            fs::create_directories(l.workspace / "mcptools");
            fs::create_directory_symlink(l.outside, l.workspace / "mcptools" / "srv");
            CHECK_THROWS_WITH_AS(directory::open_root(l.workspace).remove_tree("mcptools/srv"),
                                 doctest::Contains("symbolic link"), unsafe_workspace_path);
            CHECK(fs::is_symlink(l.workspace / "mcptools" / "srv"));
            l.untouched();
        }
        {
            const layout l("dir-remove-link-way");
            fs::create_directories(l.outside / "srv");
            write(l.outside / "srv" / "keep.py", "keep\n");
            fs::create_directory_symlink(l.outside, l.workspace / "mcptools");
            CHECK_THROWS_AS(directory::open_root(l.workspace).remove_tree("mcptools/srv"),
                            unsafe_workspace_path);
            CHECK(read(l.outside / "srv" / "keep.py") == "keep\n");
        }
    }

    TEST_CASE("remove_tree of a missing entry does nothing") {
        const layout l("dir-remove-missing");
        directory::open_root(l.workspace).remove_tree("mcptools/none");
        CHECK(entries(l.workspace).empty());
    }

    TEST_CASE("kind reports links without following them") {
        const layout l("dir-kind");
        fs::create_directory_symlink(l.outside, l.workspace / "link");
        write(l.workspace / "file", "x");
        fs::create_directories(l.workspace / "dir");
        const auto root = directory::open_root(l.workspace);
        CHECK(root.kind("link") == directory::entry::symlink);
        CHECK(root.kind("file") == directory::entry::regular_file);
        CHECK(root.kind("dir") == directory::entry::directory);
        CHECK(root.kind("none") == directory::entry::none);
        CHECK_THROWS_AS(root.kind("link/precious.txt"), unsafe_workspace_path);
    }

    TEST_CASE("unique directories are private and distinct") {
        const layout l("dir-unique");
        const auto root = directory::open_root(l.workspace);
        const auto a = root.make_unique_directory(".srv.new-");
        const auto b = root.make_unique_directory(".srv.new-");
        CHECK(a != b);
        CHECK(a.rfind(".srv.new-", 0) == 0);
        struct stat info {};
        REQUIRE(::stat((l.workspace / a).c_str(), &info) == 0);
        CHECK((info.st_mode & 0777) == 0700);
    }

    TEST_CASE("write_file_beneath refuses a link below the trusted root, not the root itself") {
        const layout l("dir-beneath");
        fs::create_directory_symlink(l.outside, l.workspace / "images");
        CHECK_THROWS_AS(write_file_beneath(l.workspace, l.workspace / "images" / "a.png", "png"),
                        unsafe_workspace_path);
        l.untouched();
        // Control: a folder the user chose outside the workspace is written as given.
        const auto chosen = l.base / "chosen-images";
        fs::create_directories(chosen);
        CHECK(read(write_file_beneath(l.workspace, chosen / "b.png", "png")) == "png");
    }
}
