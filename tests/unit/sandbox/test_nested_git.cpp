// Which nested repositories a sandboxed kernel finds protected whole (protected_paths.hpp,
// nested_git_entries): every .git below the workspace's own, a folder or a gitfile, found without
// following links and within the search's bounds.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <functional>

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
    // d3's .git is four folders down: a depth of 2 does not reach it.
    CHECK(relative(sandbox::nested_git_entries(ws, 2), ws) == std::vector<fs::path>{"one/.git"});
    CHECK(relative(sandbox::nested_git_entries(ws, 8), ws) ==
          std::vector<fs::path>{"d1/d2/d3/.git", "one/.git"});
}

TEST_CASE("nested_git_entries: a workspace it cannot search whole fails closed, naming the bound") {
    core::private_directory dir("ipybox-nested-git-");
    const auto ws = dir.path();
    // Kernel code fills the workspace with empty folders, deeper first, then a repository
    // appears at the top; the search meets the repository first but cannot finish.
    for (int i = 0; i < 40; ++i) fs::create_directories(ws / "flood" / std::to_string(i));
    touch(ws / "late" / ".git" / "config");
    try {
        sandbox::nested_git_entries(ws, 8, 30);
        FAIL("the search finished within 30 entries");
    } catch (const sandbox::nested_git_search_incomplete& e) {
        const std::string message = e.what();
        CHECK(message.find(ws.string()) != std::string::npos);
        CHECK(message.find("more than 30 entries within 8 folders") != std::string::npos);
    }
    // Control: within its bound the same search finds the repository.
    CHECK(relative(sandbox::nested_git_entries(ws, 8, 100), ws) ==
          std::vector<fs::path>{"late/.git"});
}

TEST_CASE("nested_git_entries: a repository found once stays listed while it exists") {
    core::private_directory dir("ipybox-nested-git-");
    const auto ws = dir.path();
    touch(ws / "deep" / "er" / "repo" / ".git" / "config");
    CHECK(relative(sandbox::nested_git_entries(ws), ws) ==
          std::vector<fs::path>{"deep/er/repo/.git"});
    // Out of the search's reach now (too deep for it), yet still protected.
    CHECK(relative(sandbox::nested_git_entries(ws, 1), ws) ==
          std::vector<fs::path>{"deep/er/repo/.git"});
    // Control: another workspace with the same layout, never searched deep, does not list it.
    core::private_directory other("ipybox-nested-git-");
    touch(other.path() / "deep" / "er" / "repo" / ".git" / "config");
    CHECK(sandbox::nested_git_entries(other.path(), 1).empty());
    // Gone: no longer listed (srt protects only what exists).
    fs::remove_all(ws / "deep");
    CHECK(sandbox::nested_git_entries(ws).empty());
}

// Runs `search` as the user that owns `root` (as nobody when the test runs as root, which reads
// every folder, with `root` given to nobody first) in a child process; returns its exit code.
int search_as_owner(const fs::path& root, const std::function<int()>& search) {
    const bool as_root = ::geteuid() == 0;
    if (as_root) {
        for (const auto& entry : fs::recursive_directory_iterator(root)) {
            REQUIRE(::lchown(entry.path().c_str(), 65534, 65534) == 0);
        }
        REQUIRE(::chown(root.c_str(), 65534, 65534) == 0);
    }
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        if (as_root && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(99);
        int code = 98;
        try {
            code = search();
        } catch (...) {
        }
        ::_exit(code);
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    if (as_root) REQUIRE(::chown(root.c_str(), 0, 0) == 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_CASE("nested_git_entries: a folder of the user's that it cannot read fails closed") {
    core::private_directory dir("ipybox-nested-git-");
    const auto ws = dir.path();
    touch(ws / "hidden" / "repo" / ".git" / "config");
    const auto search = [&ws] {
        try {
            const auto found = sandbox::nested_git_entries(ws);
            return found == std::vector<fs::path>{ws / "hidden" / "repo" / ".git"} ? 0 : 2;
        } catch (const sandbox::nested_git_search_incomplete& e) {
            return std::string(e.what()).find("hidden") != std::string::npos ? 1 : 3;
        }
    };
    fs::permissions(ws / "hidden", fs::perms::none);  // as a kernel (the user) could make it
    CHECK(search_as_owner(ws, search) == 1);
    // Control: readable again, the repository is found.
    fs::permissions(ws / "hidden", fs::perms::owner_all);
    CHECK(search_as_owner(ws, search) == 0);
}
