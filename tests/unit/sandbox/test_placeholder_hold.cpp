#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <memory>

#include "ipybox/core/private_directory.hpp"
#include "ipybox/sandbox/placeholder_hold.hpp"

using namespace ipybox;
using namespace ipybox::sandbox;
namespace fs = std::filesystem;

namespace {

const std::set<fs::path> directories = {".git", ".claude", ".claude/commands", ".vscode"};

struct layout {
    core::private_directory base{"ipybox-holds-"};
    fs::path workspace = base.path() / "workspace";
    fs::path holds = base.path() / "state" / "holds";
    layout() { fs::create_directories(workspace); }
    std::vector<fs::path> protected_paths() const {
        // As the sandbox asks once a .claude exists: the folder whole, not its entries.
        return {workspace / ".mcp.json", workspace / ".claude", workspace / ".git",
                workspace / ".vscode", workspace / "CLAUDE.md"};
    }
    std::vector<std::string> entries() const {
        std::vector<std::string> out;
        for (const auto& entry : fs::recursive_directory_iterator(workspace)) {
            out.push_back(fs::relative(entry.path(), workspace).string() +
                          (entry.is_directory() ? "/" : ""));
        }
        std::sort(out.begin(), out.end());
        return out;
    }
};

const std::vector<std::string> all_made = {".claude/", ".git/", ".mcp.json", ".vscode/",
                                           "CLAUDE.md"};

}  // namespace

TEST_SUITE("sandbox.placeholder_hold") {
    TEST_CASE("a missing path needs a placeholder at its first missing component") {
        layout l;
        auto needed =
            missing_placeholders(l.workspace,
                                 {l.workspace / ".mcp.json", l.workspace / ".claude/settings.json",
                                  l.workspace / ".claude/commands", l.workspace / ".git",
                                  l.workspace / ".vscode", l.workspace / "CLAUDE.md"},
                                 {".git", ".claude/commands", ".vscode"});
        std::vector<std::pair<std::string, bool>> got;
        for (const auto& p : needed) got.emplace_back(p.relative.string(), p.directory);
        CHECK(got == std::vector<std::pair<std::string, bool>>{{".claude", true},
                                                               {".git", true},
                                                               {".mcp.json", false},
                                                               {".vscode", true},
                                                               {"CLAUDE.md", false}});
        // Inside an existing .claude, its own entries; paths outside the workspace need none.
        fs::create_directory(l.workspace / ".claude");
        needed = missing_placeholders(l.workspace, {l.workspace / ".claude/commands", "/etc/x"},
                                      directories);
        REQUIRE(needed.size() == 1);
        CHECK(needed[0].relative == ".claude/commands");
        CHECK(needed[0].directory);
    }

    TEST_CASE("nothing is made through a link or below a file") {
        layout l;
        fs::create_directory(l.base.path() / "elsewhere");
        fs::create_directory_symlink(l.base.path() / "elsewhere", l.workspace / ".claude");
        std::ofstream(l.workspace / ".git") << "gitdir: ../x\n";
        const auto needed = missing_placeholders(
            l.workspace, {l.workspace / ".claude/settings.json", l.workspace / ".git/config"},
            directories);
        CHECK(needed.empty());
        placeholder_hold hold(l.workspace, l.holds);
        hold.ensure({l.workspace / ".claude/settings.json"}, directories);
        CHECK(fs::is_empty(l.base.path() / "elsewhere"));
    }

    TEST_CASE("the placeholders stay while any holder is left, and go with the last") {
        layout l;
        auto first = std::make_unique<placeholder_hold>(l.workspace, l.holds);
        first->ensure(l.protected_paths(), directories);
        CHECK(l.entries() == all_made);
        CHECK(fs::exists(first->record_file()));
        // A second holder (another ipybox process: flock works per open file, as between
        // processes) adopts them; the first leaving removes nothing.
        auto second = std::make_unique<placeholder_hold>(l.workspace, l.holds);
        second->ensure(l.protected_paths(), directories);
        first.reset();
        CHECK(l.entries() == all_made);
        second.reset();
        CHECK(l.entries().empty());
    }

    TEST_CASE("what the user made of a placeholder is kept, and a deleted one comes back") {
        layout l;
        {
            placeholder_hold hold(l.workspace, l.holds);
            hold.ensure(l.protected_paths(), directories);
            fs::remove(l.workspace / "CLAUDE.md");
            hold.ensure(l.protected_paths(), directories);
            CHECK(fs::exists(l.workspace / "CLAUDE.md"));
            std::ofstream(l.workspace / ".mcp.json") << "{}\n";
            std::ofstream(l.workspace / ".claude" / "settings.local.json") << "{}\n";
        }
        CHECK(l.entries() ==
              std::vector<std::string>{".claude/", ".claude/settings.local.json", ".mcp.json"});
    }

    TEST_CASE(
        "a holder killed with SIGKILL leaves its placeholders to the next, which removes them") {
        layout l;
        const pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            placeholder_hold hold(l.workspace, l.holds);
            hold.ensure(l.protected_paths(), directories);
            ::kill(::getpid(), SIGKILL);
        }
        int status = 0;
        ::waitpid(child, &status, 0);
        CHECK(WIFSIGNALED(status));
        CHECK(l.entries() == all_made);  // killed: nothing was removed
        {
            placeholder_hold next(l.workspace, l.holds);
            next.ensure(l.protected_paths(), directories);
        }
        CHECK(l.entries().empty());
    }

    TEST_CASE("a placeholder that cannot be made stops the start with the path named") {
        layout l;
        placeholder_hold hold(l.workspace, l.holds);
        const auto unmakeable = l.workspace / std::string(300, 'x');  // longer than NAME_MAX
        try {
            hold.ensure({unmakeable}, directories);
            FAIL("a protection was silently dropped");
        } catch (const protection_unavailable& e) {
            CHECK(std::string(e.what()).find(std::string(300, 'x')) != std::string::npos);
        }
    }
}
