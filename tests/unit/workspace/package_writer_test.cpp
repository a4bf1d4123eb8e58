// write_generated_package: atomic replacement of root/<server>/ and nothing else.
#include "ipybox/workspace/package_writer.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <test_paths.hpp>

#include "file_helpers.hpp"
#include "ipybox/codegen/naming.hpp"

namespace fs = std::filesystem;
using ipybox::codegen::generated_file;
using ipybox::codegen::invalid_server_name;
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

std::vector<generated_file> package_files(const std::string& server, const std::string& marker) {
    return {{server + "/__init__.py", "# " + marker + "\n"},
            {server + "/tool.py", "X = '" + marker + "'\n"}};
}

}  // namespace

TEST_CASE("creates the root directory and the package, without an __init__.py in the root") {
    const fs::path root = ipybox::testing::fresh_directory("pkg-create") / "mcptools";
    const auto target = write_generated_package(root, "github", package_files("github", "v1"));
    CHECK(target == root / "github");
    CHECK(read(root / "github" / "tool.py") == "X = 'v1'\n");
    CHECK(entries(root) == std::set<std::string>{"github"});
}

TEST_CASE("replaces an existing package completely and leaves no staging directories") {
    const fs::path root = ipybox::testing::fresh_directory("pkg-replace");
    write_generated_package(root, "github", package_files("github", "v1"));
    write(root / "github" / "stale.py", "old tool\n");
    write_generated_package(root, "github", package_files("github", "v2"));
    CHECK(read(root / "github" / "tool.py") == "X = 'v2'\n");
    CHECK_FALSE(fs::exists(root / "github" / "stale.py"));
    CHECK(entries(root) == std::set<std::string>{"github"});
}

TEST_CASE("never touches sibling packages or files in the root") {
    const fs::path root = ipybox::testing::fresh_directory("pkg-siblings");
    write(root / "other" / "keep.py", "keep\n");
    write(root / "notes.txt", "keep\n");
    write_generated_package(root, "github", package_files("github", "v1"));
    write_generated_package(root, "github", package_files("github", "v2"));
    CHECK(read(root / "other" / "keep.py") == "keep\n");
    CHECK(read(root / "notes.txt") == "keep\n");
    CHECK(entries(root) == std::set<std::string>{"github", "notes.txt", "other"});
}

TEST_CASE("refuses a symlinked package directory and leaves both link and target alone") {
    const fs::path base = ipybox::testing::fresh_directory("pkg-symlink");
    const fs::path root = base / "mcptools";
    write(base / "elsewhere" / "precious.txt", "precious\n");
    fs::create_directories(root);
    fs::create_directory_symlink(base / "elsewhere", root / "github");
    CHECK_THROWS_AS(write_generated_package(root, "github", package_files("github", "v1")),
                    unsafe_package_path);
    CHECK(fs::is_symlink(root / "github"));
    CHECK(read(base / "elsewhere" / "precious.txt") == "precious\n");
    CHECK(entries(root) == std::set<std::string>{"github"});
}

TEST_CASE("refuses to replace a regular file named like the package") {
    const fs::path root = ipybox::testing::fresh_directory("pkg-file");
    write(root / "github", "not a directory\n");
    CHECK_THROWS_AS(write_generated_package(root, "github", package_files("github", "v1")),
                    unsafe_package_path);
    CHECK(read(root / "github") == "not a directory\n");
}

TEST_CASE("refuses invalid server names before writing anything") {
    const fs::path root = ipybox::testing::fresh_directory("pkg-names");
    for (const char* name : {"", "..", "a/b", "/abs", "_x", "class"}) {
        CHECK_THROWS_AS(write_generated_package(root, name, {{std::string(name) + "/x.py", ""}}),
                        invalid_server_name);
    }
    CHECK(fs::is_empty(root));
}

TEST_CASE("refuses file paths that leave the package directory, keeping the old package") {
    const fs::path root = ipybox::testing::fresh_directory("pkg-paths");
    write_generated_package(root, "srv", package_files("srv", "v1"));
    for (const char* path : {"other/x.py", "srv/../x.py", "srv/./x.py", "/srv/x.py", "srv", "srv/",
                             "srv//x.py", "srv/a\\..\\x.py", "../srv/x.py"}) {
        INFO(path);
        CHECK_THROWS_AS(write_generated_package(root, "srv", {{path, "evil"}}),
                        unsafe_package_path);
    }
    CHECK(read(root / "srv" / "tool.py") == "X = 'v1'\n");
    CHECK(entries(root) == std::set<std::string>{"srv"});
}

TEST_CASE("removing the old package does not follow symlinks inside it") {
    const fs::path base = ipybox::testing::fresh_directory("pkg-inner-link");
    const fs::path root = base / "mcptools";
    write(base / "outside" / "precious.txt", "precious\n");
    write_generated_package(root, "srv", package_files("srv", "v1"));
    fs::create_directory_symlink(base / "outside", root / "srv" / "link");
    write_generated_package(root, "srv", package_files("srv", "v2"));
    CHECK(read(base / "outside" / "precious.txt") == "precious\n");
    CHECK_FALSE(fs::exists(root / "srv" / "link"));
}

TEST_CASE("writes nested files and readable permissions") {
    const fs::path root = ipybox::testing::fresh_directory("pkg-nested");
    write_generated_package(root, "srv", {{"srv/__init__.py", ""}, {"srv/sub/mod.py", "A = 1\n"}});
    CHECK(read(root / "srv" / "sub" / "mod.py") == "A = 1\n");
    const auto perms = fs::status(root / "srv").permissions();
    CHECK((perms & fs::perms::others_read) != fs::perms::none);
    CHECK((perms & fs::perms::owner_write) != fs::perms::none);
}

TEST_CASE(
    "a link planted at the package root (mcptools) is refused and nothing is written outside") {
    const fs::path base = ipybox::testing::fresh_directory("pkg-root-link");
    const fs::path workspace = base / "workspace";
    fs::create_directories(workspace);
    write(base / "outside" / "precious.txt", "precious\n");
    fs::create_directory_symlink(base / "outside", workspace / "mcptools");
    CHECK_THROWS_WITH_AS(
        write_generated_package(directory::open_root(workspace), "mcptools", "github",
                                package_files("github", "v1")),
        doctest::Contains(((workspace / "mcptools").string() + ": it is a symbolic link").c_str()),
        unsafe_workspace_path);
    CHECK(entries(base / "outside") == std::set<std::string>{"precious.txt"});
    // Control: with a real directory there the package is written.
    fs::remove(workspace / "mcptools");
    fs::create_directories(workspace / "mcptools");
    const auto target = write_generated_package(directory::open_root(workspace), "mcptools",
                                                "github", package_files("github", "v1"));
    CHECK(target == workspace / "mcptools" / "github");
    CHECK(read(target / "tool.py") == "X = 'v1'\n");
}

TEST_CASE("regenerating a package whose directory became a link deletes nothing through it") {
    const fs::path base = ipybox::testing::fresh_directory("pkg-regen-link");
    const fs::path workspace = base / "workspace";
    const auto root = directory::open_root(workspace);
    write_generated_package(root, "mcptools", "srv", package_files("srv", "v1"));
    write(base / "outside" / "__init__.py", "# someone else's\n");
    fs::remove_all(workspace / "mcptools" / "srv");
    fs::create_directory_symlink(base / "outside", workspace / "mcptools" / "srv");
    CHECK_THROWS_AS(write_generated_package(root, "mcptools", "srv", package_files("srv", "v2")),
                    unsafe_workspace_path);
    CHECK(read(base / "outside" / "__init__.py") == "# someone else's\n");
    CHECK(entries(workspace / "mcptools") == std::set<std::string>{"srv"});
}
