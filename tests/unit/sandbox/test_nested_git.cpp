// Which nested repositories a sandboxed kernel finds protected whole (protected_paths.hpp,
// nested_git_entries): every .git below the workspace's own, a folder or a gitfile, found without
// following links and within the search's bounds.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>

#include "ipybox/core/private_directory.hpp"
#include "ipybox/sandbox/protected_paths.hpp"

using namespace ipybox;
namespace fs = std::filesystem;

namespace {

void touch(const fs::path& file) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << "x\n";
}

std::vector<fs::path> relative(const std::vector<fs::path>& found, const fs::path& root) {
    std::vector<fs::path> out;
    for (const auto& path : found) out.push_back(path.lexically_relative(root));
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST_CASE("nested_git_entries: nested repositories and gitfiles, not the workspace's own .git") {
    core::private_directory dir("ipybox-nested-git-");
    const auto ws = dir.path();
    touch(ws / ".git" / "config");  // the workspace's own: protected by name already
    touch(ws / ".git" / "modules" / "x" / ".git" / "config");  // inside it: not searched
    touch(ws / "vendor" / "lib" / ".git" / "config");
    touch(ws / "a" / "b" / "c" / ".git");                    // a gitfile (a worktree or submodule)
    touch(ws / "node_modules" / "pkg" / ".git" / "config");  // not searched
    touch(ws / ".ipybox" / "x" / ".git" / "config");         // not searched
    touch(ws / "src" / "main.py");
    fs::create_directories(ws / "outside" / ".git");
    fs::create_directory_symlink(ws / "outside", ws / "linked");  // the link is not followed
    CHECK(relative(sandbox::nested_git_entries(ws), ws) ==
          std::vector<fs::path>{"a/b/c/.git", "outside/.git", "vendor/lib/.git"});
}

TEST_CASE("nested_git_entries: the search stops at its depth and entry bounds") {
    core::private_directory dir("ipybox-nested-git-");
    const auto ws = dir.path();
    touch(ws / "one" / ".git" / "config");
    touch(ws / "d1" / "d2" / "d3" / ".git" / "config");
    CHECK(relative(sandbox::nested_git_entries(ws, 8), ws) ==
          std::vector<fs::path>{"d1/d2/d3/.git", "one/.git"});
    // d3's .git is four folders down: a depth of 2 does not reach it.
    CHECK(relative(sandbox::nested_git_entries(ws, 2), ws) == std::vector<fs::path>{"one/.git"});
    CHECK(sandbox::nested_git_entries(ws, 8, 1).size() <= 1);
}
