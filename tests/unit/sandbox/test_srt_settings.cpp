// The srt settings of a sandboxed kernel: the user's config, plus what ipybox needs.
#include <doctest/doctest.h>

#include "ipybox/sandbox/srt_settings.hpp"

using ipybox::sandbox::sandbox_paths;
using ipybox::sandbox::sandbox_platform;
using nlohmann::json;

namespace {

// The settings for bubblewrap, whichever back end this build's srt uses.
json bubblewrap_settings(const json& user, const sandbox_paths& paths) {
    return ipybox::sandbox::srt_settings(user, paths, sandbox_platform::linux);
}

json seatbelt_settings(const json& user, const sandbox_paths& paths) {
    return ipybox::sandbox::srt_settings(user, paths, sandbox_platform::darwin);
}

}  // namespace

namespace {

const sandbox_paths paths{{"/ws", "/tmp/ipybox-abc/k"},
                          {"/ws/.env", "/tmp/ipybox-abc"},
                          {"/tmp/ipybox-abc/k", "/tmp/ipybox-abc/tools"},
                          {"/ws/.env"},
                          {"/tmp/ipybox-abc/k", "/tmp/ipybox-abc/tools/tools.sock"}};

}  // namespace

TEST_SUITE("sandbox.settings") {
    TEST_CASE("no config: no network, writes only where ipybox needs them, .env unreadable") {
        const auto settings = bubblewrap_settings(nullptr, paths);
        CHECK(settings["network"]["allowedDomains"] == json::array());
        CHECK(settings["network"]["deniedDomains"] == json::array());
        CHECK(settings["network"]["allowAllUnixSockets"] == true);
        CHECK(!settings["network"].contains("allowUnixSockets"));  // seccomp cannot tell paths
        CHECK(settings["filesystem"]["allowWrite"] == json{"/ws", "/tmp/ipybox-abc/k"});
        CHECK(settings["filesystem"]["denyRead"] == json{"/ws/.env", "/tmp/ipybox-abc"});
        CHECK(settings["filesystem"]["denyWrite"] == json{"/ws/.env"});
        CHECK(settings["filesystem"]["allowRead"] ==
              json{"/tmp/ipybox-abc/k", "/tmp/ipybox-abc/tools"});
    }

    TEST_CASE("the user's rules are kept and ipybox's are added, without duplicates") {
        const json user = {
            {"network", {{"allowedDomains", {"pypi.org"}}, {"allowLocalBinding", false}}},
            {"filesystem", {{"allowWrite", {"/ws", "~/.cache"}}, {"denyRead", {"~/.ssh"}}}},
            {"enableWeakerNestedSandbox", true}};
        const auto settings = bubblewrap_settings(user, paths);
        CHECK(settings["network"]["allowedDomains"] == json{"pypi.org"});
        CHECK(settings["network"]["allowLocalBinding"] == false);
        CHECK(settings["filesystem"]["allowWrite"] == json{"/ws", "~/.cache", "/tmp/ipybox-abc/k"});
        CHECK(settings["filesystem"]["denyRead"] == json{"~/.ssh", "/ws/.env", "/tmp/ipybox-abc"});
        CHECK(settings["enableWeakerNestedSandbox"] == true);
    }

    TEST_CASE("the user cannot take away what the kernel needs to talk to ipybox") {
        const json user = {{"network", {{"allowAllUnixSockets", false}}}};
        CHECK(bubblewrap_settings(user, paths)["network"]["allowAllUnixSockets"] == true);
    }

    TEST_CASE("srt's literal path entries are accepted in the filesystem lists") {
        const json user = {
            {"filesystem", {{"denyRead", {{{"path", "/x/*.env"}, {"literal", true}}}}}}};
        CHECK(bubblewrap_settings(user, paths)["filesystem"]["denyRead"].size() == 3);
    }

    TEST_CASE("a config of the wrong shape is refused, naming the field") {
        CHECK_THROWS_AS(bubblewrap_settings(json::array(), paths), std::invalid_argument);
        CHECK_THROWS_AS(bubblewrap_settings("allow all", paths), std::invalid_argument);
        CHECK_THROWS_WITH_AS(bubblewrap_settings(json{{"network", "none"}}, paths),
                             "network must be an object", std::invalid_argument);
        CHECK_THROWS_WITH_AS(
            bubblewrap_settings(json{{"filesystem", {{"allowWrite", "/"}}}}, paths),
            "filesystem.allowWrite must be a list of strings", std::invalid_argument);
        CHECK_THROWS_WITH_AS(
            bubblewrap_settings(json{{"network", {{"allowedDomains", {1, 2}}}}}, paths),
            "network.allowedDomains must be a list of strings", std::invalid_argument);
    }
}

TEST_SUITE("sandbox.settings.darwin") {
    TEST_CASE("this build's srt uses Seatbelt only on macOS") {
#ifdef __APPLE__
        CHECK(ipybox::sandbox::host_sandbox_platform() == sandbox_platform::darwin);
#else
        CHECK(ipybox::sandbox::host_sandbox_platform() == sandbox_platform::linux);
#endif
    }

    TEST_CASE("the paths are the same rules as for bubblewrap") {
        const auto settings = seatbelt_settings(nullptr, paths);
        CHECK(settings["filesystem"] == bubblewrap_settings(nullptr, paths)["filesystem"]);
        CHECK(settings["network"]["allowedDomains"] == json::array());
    }

    TEST_CASE("Unix sockets only where the kernel's channels and the tool server's socket lie") {
        const auto settings = seatbelt_settings(nullptr, paths);
        CHECK(settings["network"]["allowAllUnixSockets"] == false);
        CHECK(settings["network"]["allowUnixSockets"] ==
              json{"/tmp/ipybox-abc/k", "/tmp/ipybox-abc/tools/tools.sock"});
        // Not even a config may open every socket of the host (launchd's, Docker's, DNS).
        const json user = {{"network", {{"allowAllUnixSockets", true}}}};
        CHECK(seatbelt_settings(user, paths)["network"]["allowAllUnixSockets"] == false);
    }

    TEST_CASE("bubblewrap's own settings are left out, the user's others kept") {
        const json user = {{"network", {{"allowedDomains", {"pypi.org"}}}},
                           {"enableWeakerNestedSandbox", true},
                           {"allowNestedUserNamespaces", true},
                           {"mandatoryDenySearchDepth", 5},
                           {"ripgrep", {{"command", "rg"}}},
                           {"seccomp", json::object()},
                           {"bwrapPath", "/usr/bin/bwrap"},
                           {"socatPath", "/usr/bin/socat"}};
        const auto settings = seatbelt_settings(user, paths);
        CHECK(settings.size() == 2);
        CHECK(settings["network"]["allowedDomains"] == json{"pypi.org"});
        CHECK(bubblewrap_settings(user, paths).size() == 9);  // bubblewrap reads them all
    }

    TEST_CASE("a config of the wrong shape is refused the same way") {
        CHECK_THROWS_WITH_AS(
            seatbelt_settings(json{{"network", {{"allowUnixSockets", "/"}}}}, paths),
            "network.allowUnixSockets must be a list of strings", std::invalid_argument);
        CHECK_THROWS_AS(seatbelt_settings(json::array(), paths), std::invalid_argument);
    }
}
