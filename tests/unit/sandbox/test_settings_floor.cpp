// What a sandbox config can never do: lift ipybox's floor (issue 35, item 3: a project's
// .claude/ipybox-sandbox.json granted reads of ~/.ssh, the workspace .env and ipybox's state, and
// writes to that state), or set what weakens srt or names a program srt runs on the host.
#include <doctest/doctest.h>

#include "ipybox/sandbox/settings_floor.hpp"

using ipybox::sandbox::check_accepted_settings;
using ipybox::sandbox::floor_breach;
using ipybox::sandbox::granted_path;
using ipybox::sandbox::protected_floor;
using ipybox::sandbox::within;
using nlohmann::json;

namespace {

const protected_floor floor_of{{"/home/u/.ssh", "/ws/.env", "/home/u/.local/state/ipybox", "/tmp"},
                               {"/ws/.git", "/ws/.claude", "/ws/.env"},
                               {"/ws", "/tmp/ipybox-1/k"}};

std::string breach(const std::string& list, const std::string& path, bool glob = false) {
    return floor_breach({list, path, {path}, glob}, floor_of);
}

}  // namespace

TEST_SUITE("sandbox.settings_floor") {
    TEST_CASE("within compares whole path components") {
        CHECK(within("/home/u/.ssh", "/home/u/.ssh"));
        CHECK(within("/home/u/.ssh/id_rsa", "/home/u/.ssh"));
        CHECK(within("/home/u/.ssh/id_rsa", "/home/u/.ssh/"));
        CHECK_FALSE(within("/home/u/.sshx", "/home/u/.ssh"));
        CHECK_FALSE(within("/home/u", "/home/u/.ssh"));
        CHECK(within("/anything", "/"));
    }

    TEST_CASE("allowRead may not open a credential folder, the workspace .env or ipybox's state") {
        for (const auto* opened : {"/home/u/.ssh", "/home/u/.ssh/id_ed25519", "/ws/.env",
                                   "/home/u/.local/state/ipybox", "/tmp/ipybox-2/tools"}) {
            CAPTURE(opened);
            const auto why = breach("allowRead", opened);
            CHECK(why.find("keeps unreadable") != std::string::npos);
            CHECK(why.find(opened) != std::string::npos);
        }
        // Controls: a broader grant leaves the narrower deny standing (srt's rule), and other
        // folders are the user's to open.
        CHECK(breach("allowRead", "/home/u").empty());
        CHECK(breach("allowRead", "/home/u/data").empty());
        CHECK(breach("allowRead", "/").empty());
    }

    TEST_CASE("a pattern counts for every path below its base") {
        CHECK_FALSE(breach("allowRead", "/home/u", true).empty());  // ~/.s* matches ~/.ssh
        CHECK(breach("allowRead", "/home/u/data", true).empty());
    }

    TEST_CASE("allowWrite may not open what is unreadable or unwritable, nor a folder holding it") {
        for (const auto* opened :
             {"/home/u/.local/state/ipybox", "/home/u/.local/state/ipybox/x", "/ws/.git",
              "/ws/.git/hooks", "/ws/.claude", "/ws/.env", "/home/u/.local/state", "/home/u"}) {
            CAPTURE(opened);
            CHECK(breach("allowWrite", opened).find("keeps unwritable") != std::string::npos);
        }
        // Controls: inside ipybox's writable workspace its own denies stand; elsewhere the user
        // may grant a folder that holds nothing protected.
        CHECK(breach("allowWrite", "/ws").empty());
        CHECK(breach("allowWrite", "/ws/build").empty());
        CHECK(breach("allowWrite", "/home/u/data").empty());
    }

    TEST_CASE("every form of a grant is checked: a link that leads into a protected folder") {
        const granted_path linked{"allowRead", "/ws/data", {"/ws/data", "/home/u/.ssh"}, false};
        CHECK(floor_breach(linked, floor_of).find("/home/u/.ssh") != std::string::npos);
        const granted_path plain{"allowRead", "/ws/data", {"/ws/data"}, false};
        CHECK(floor_breach(plain, floor_of).empty());
    }

    TEST_CASE("only the settings that add restrictions or domains and paths are accepted") {
        CHECK_NOTHROW(check_accepted_settings(nullptr));
        CHECK_NOTHROW(check_accepted_settings(
            json{{"network", {{"allowedDomains", {"pypi.org"}}, {"deniedDomains", json::array()}}},
                 {"filesystem", {{"denyRead", {"~/x"}}, {"allowWrite", {"/data"}}}}}));
        const auto refused = [](const json& config) {
            try {
                check_accepted_settings(config);
            } catch (const std::invalid_argument& e) {
                return std::string(e.what());
            }
            return std::string();
        };
        CHECK(
            refused({{"bwrapPath", "/ws/bwrap"}}).find("bwrapPath: it names a program srt runs") !=
            std::string::npos);
        CHECK(refused({{"ripgrep", {{"command", "/ws/rg"}}}}).find("program") != std::string::npos);
        CHECK(refused({{"seccomp", {{"applyPath", "/ws/x"}}}}).find("program") !=
              std::string::npos);
        CHECK(refused({{"enableWeakerNestedSandbox", true}}).find("loosen") != std::string::npos);
        CHECK(refused({{"filesystem", {{"allowGitConfig", true}}}})
                  .find("filesystem.allowGitConfig") != std::string::npos);
        CHECK(refused({{"network", {{"allowUnixSockets", {"/var/run/docker.sock"}}}}})
                  .find("network.allowUnixSockets") != std::string::npos);
        CHECK(refused({{"mandatoryDenySearchDepth", 1}}).find("may not set") != std::string::npos);
    }
}
