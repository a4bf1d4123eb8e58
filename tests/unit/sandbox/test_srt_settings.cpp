// The srt settings of a sandboxed kernel: the user's config, plus what ipybox needs.
#include <doctest/doctest.h>

#include "ipybox/sandbox/srt_settings.hpp"

using ipybox::sandbox::sandbox_paths;
using ipybox::sandbox::srt_settings;
using nlohmann::json;

namespace {

const sandbox_paths paths{{"/ws", "/tmp/ipybox-abc/k"},
                          {"/ws/.env", "/tmp/ipybox-abc"},
                          {"/tmp/ipybox-abc/k", "/tmp/ipybox-abc/tools"},
                          {"/ws/.env"}};

}  // namespace

TEST_SUITE("sandbox.settings") {
    TEST_CASE("no config: no network, writes only where ipybox needs them, .env unreadable") {
        const auto settings = srt_settings(nullptr, paths);
        CHECK(settings["network"]["allowedDomains"] == json::array());
        CHECK(settings["network"]["deniedDomains"] == json::array());
        CHECK(settings["network"]["allowAllUnixSockets"] == true);
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
        const auto settings = srt_settings(user, paths);
        CHECK(settings["network"]["allowedDomains"] == json{"pypi.org"});
        CHECK(settings["network"]["allowLocalBinding"] == false);
        CHECK(settings["filesystem"]["allowWrite"] == json{"/ws", "~/.cache", "/tmp/ipybox-abc/k"});
        CHECK(settings["filesystem"]["denyRead"] == json{"~/.ssh", "/ws/.env", "/tmp/ipybox-abc"});
        CHECK(settings["enableWeakerNestedSandbox"] == true);
    }

    TEST_CASE("the user cannot take away what the kernel needs to talk to ipybox") {
        const json user = {{"network", {{"allowAllUnixSockets", false}}}};
        CHECK(srt_settings(user, paths)["network"]["allowAllUnixSockets"] == true);
    }

    TEST_CASE("srt's literal path entries are accepted in the filesystem lists") {
        const json user = {
            {"filesystem", {{"denyRead", {{{"path", "/x/*.env"}, {"literal", true}}}}}}};
        CHECK(srt_settings(user, paths)["filesystem"]["denyRead"].size() == 3);
    }

    TEST_CASE("a config of the wrong shape is refused, naming the field") {
        CHECK_THROWS_AS(srt_settings(json::array(), paths), std::invalid_argument);
        CHECK_THROWS_AS(srt_settings("allow all", paths), std::invalid_argument);
        CHECK_THROWS_WITH_AS(srt_settings(json{{"network", "none"}}, paths),
                             "network must be an object", std::invalid_argument);
        CHECK_THROWS_WITH_AS(srt_settings(json{{"filesystem", {{"allowWrite", "/"}}}}, paths),
                             "filesystem.allowWrite must be a list of strings",
                             std::invalid_argument);
        CHECK_THROWS_WITH_AS(srt_settings(json{{"network", {{"allowedDomains", {1, 2}}}}}, paths),
                             "network.allowedDomains must be a list of strings",
                             std::invalid_argument);
    }
}
