// The settings a sandboxed kernel would get, computed without writing anything
// (native/app/executor/src/kernel_sandboxing.hpp): what a kernel template compares before each
// fork, so that a kernel forked from it gets the sandbox a cold kernel would get now.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>

#include "ipybox/sandbox/protected_paths.hpp"
#include "kernel_sandboxing.hpp"
#include "test_paths.hpp"

using namespace ipybox;

namespace {

struct sandbox_fixture {
    std::filesystem::path root = testing::fresh_directory("kernel-sandboxing");
    std::filesystem::path workspace = root / "workspace";
    std::filesystem::path home = root / "home";
    std::filesystem::path kernel_dir = root / "kernel";
    kernel_sandbox sandbox;
    app::kernel_sandbox_context context;

    sandbox_fixture() {
        for (const auto& dir : {workspace, home, kernel_dir, root / "settings"}) {
            std::filesystem::create_directories(dir);
        }
        context.srt = "/nonexistent/srt";
        context.settings_directory = root / "settings";
        context.workspace = workspace;
        context.home = home;
        // Bubblewrap's settings unless a test says otherwise, whichever back end this build has.
        context.platform = sandbox::sandbox_platform::linux;
    }
};

}  // namespace

TEST_CASE("the sandbox's settings stay the same while nothing they depend on changes") {
    sandbox_fixture f;
    const auto settings = app::srt_kernel_settings(f.sandbox, f.context);
    const auto before = settings(f.kernel_dir);
    std::ofstream(f.workspace / "notes.txt") << "ordinary\n";
    std::filesystem::create_directories(f.workspace / "src");
    CHECK(settings(f.kernel_dir) == before);
    // Another directory, another sandbox: the comparison sees the kernel's folder too.
    CHECK(settings(f.root / "other") != before);
}

TEST_CASE("a repository nested in the workspace since changes them (it is protected whole)") {
    sandbox_fixture f;
    const auto settings = app::srt_kernel_settings(f.sandbox, f.context);
    const auto before = settings(f.kernel_dir);
    std::filesystem::create_directories(f.workspace / "vendor" / "lib" / ".git");
    const auto after = settings(f.kernel_dir);
    CHECK(after != before);
    CHECK(after.find((f.workspace / "vendor" / "lib" / ".git").string()) != std::string::npos);
}

TEST_CASE("a credential folder made since changes them (it is hidden from then on)") {
    sandbox_fixture f;
    const auto settings = app::srt_kernel_settings(f.sandbox, f.context);
    const auto before = settings(f.kernel_dir);
    CHECK(before.find((f.home / ".aws").string()) == std::string::npos);
    std::filesystem::create_directories(f.home / ".aws");
    const auto after = settings(f.kernel_dir);
    CHECK(after != before);
    CHECK(after.find((f.home / ".aws").string()) != std::string::npos);
}

TEST_CASE(
    "they are what the wrapper writes for the same folder, and computing them writes "
    "nothing") {
    sandbox_fixture f;
    const auto settings = app::srt_kernel_settings(f.sandbox, f.context);
    const auto computed = settings(f.kernel_dir);
    CHECK(std::filesystem::is_empty(f.root / "settings"));
    CHECK(std::filesystem::is_empty(f.kernel_dir));
    const auto wrapping = app::srt_kernel_wrapper(f.sandbox, f.context)(f.kernel_dir);
    std::ifstream written(f.root / "settings" / "kernel.json");
    CHECK(nlohmann::json::parse(written).dump() == computed);
    CHECK(wrapping.environment.at("TMPDIR") == (f.kernel_dir / "tmp").string());
    CHECK(std::filesystem::is_directory(f.kernel_dir / "tmp"));
}

namespace {

// The settings of `f` with its root folder written <root>, so that they compare across runs.
nlohmann::json portable_settings(const sandbox_fixture& f) {
    auto text = app::srt_kernel_settings(f.sandbox, f.context)(f.kernel_dir);
    const auto root = f.root.string();
    for (auto at = text.find(root); at != std::string::npos; at = text.find(root, at)) {
        text.replace(at, root.size(), "<root>");
    }
    return nlohmann::json::parse(text);
}

// A fixture with something in each list: a user config, a credential folder, a state folder,
// a configuration file, a nested repository, a folder read back in, a PATH.
void furnish(sandbox_fixture& f) {
    std::filesystem::create_directories(f.home / ".aws");
    std::filesystem::create_directories(f.root / "state");
    std::filesystem::create_directories(f.workspace / "vendor" / ".git");
    std::filesystem::create_directories(f.root / "runtime");
    f.context.state_directories = {f.root / "state"};
    f.context.visible = {f.root / "runtime"};
    f.context.wrapper_environment["PATH"] = (f.root / "bin").string() + ":/usr/bin";
    f.sandbox.settings = {{"network", {{"allowedDomains", {"pypi.org"}}}},
                          {"filesystem", {{"denyRead", {"~/secrets"}}}}};
    f.sandbox.unwritable = {f.root / "policy.json"};
}

// `settings` are those in tests/golden/sandbox/<name> (written there with IPYBOX_UPDATE_GOLDEN).
void check_golden(const nlohmann::json& settings, const std::string& name) {
    const auto golden = testing::source_dir() / "tests/golden/sandbox" / name;
    if (std::getenv("IPYBOX_UPDATE_GOLDEN") != nullptr) {
        std::filesystem::create_directories(golden.parent_path());
        std::ofstream(golden) << settings.dump(2) << "\n";
    }
    std::ifstream expected(golden);
    REQUIRE_MESSAGE(expected.good(), golden.string() << " is missing (IPYBOX_UPDATE_GOLDEN=1)");
    CHECK(settings == nlohmann::json::parse(expected));
}

}  // namespace

TEST_CASE("on Linux the settings are those pinned in tests/golden/sandbox/linux_kernel.json") {
    sandbox_fixture f;
    furnish(f);
    check_golden(portable_settings(f), "linux_kernel.json");
}

namespace {

nlohmann::json wrapped_settings(const sandbox_fixture& f) {
    app::srt_kernel_wrapper(f.sandbox, f.context)(f.kernel_dir);
    std::ifstream written(f.root / "settings" / "kernel.json");
    return nlohmann::json::parse(written);
}

bool lists(const nlohmann::json& list, const std::filesystem::path& path) {
    return std::find(list.begin(), list.end(), nlohmann::json(path.string())) != list.end();
}

// What is in the workspace, relative to it.
std::set<std::filesystem::path> contents(const std::filesystem::path& workspace) {
    std::set<std::filesystem::path> found;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(workspace)) {
        found.insert(entry.path().lexically_relative(workspace));
    }
    return found;
}

}  // namespace

TEST_CASE("on darwin the settings are those pinned in tests/golden/sandbox/darwin_kernel.json") {
    sandbox_fixture f;
    furnish(f);
    f.context.platform = sandbox::sandbox_platform::darwin;
    f.context.unix_sockets = {f.root / "tools" / "tools.sock"};
    check_golden(portable_settings(f), "darwin_kernel.json");
}

TEST_SUITE("kernel sandbox on darwin (Seatbelt)") {
    TEST_CASE("every protected path is denied by name and nothing is made in the workspace") {
        sandbox_fixture f;
        f.context.platform = sandbox::sandbox_platform::darwin;
        f.context.placeholders =
            std::make_shared<sandbox::placeholder_hold>(f.workspace, f.root / "holds");
        f.sandbox.unwritable = {f.workspace / "policy.json"};
        const auto settings = wrapped_settings(f);
        const auto protections =
            sandbox::default_protections(f.home, f.workspace, {}, f.sandbox.unwritable, false);
        REQUIRE(protections.unwritable.size() > 20);
        for (const auto& path : protections.unwritable) {
            CHECK_MESSAGE(lists(settings["filesystem"]["denyWrite"], path), path.string());
        }
        // No credential location exists in this home: each is denied all the same.
        for (const auto& path : protections.unreadable) {
            CHECK_MESSAGE(lists(settings["filesystem"]["denyRead"], path), path.string());
        }
        CHECK(contents(f.workspace).empty());
        CHECK(!std::filesystem::exists(f.context.placeholders->record_file()));
    }

    TEST_CASE("an existing .claude is left as it is (bubblewrap needs its commands, agents)") {
        sandbox_fixture f;
        f.context.platform = sandbox::sandbox_platform::darwin;
        std::filesystem::create_directories(f.workspace / ".claude");
        std::filesystem::create_directories(f.workspace / ".git");
        const auto settings = wrapped_settings(f);
        CHECK(lists(settings["filesystem"]["denyWrite"], f.workspace / ".claude"));
        CHECK(contents(f.workspace) == std::set<std::filesystem::path>{".claude", ".git"});
    }

    TEST_CASE("Unix sockets only in the kernel's folder and at the tool server's socket") {
        sandbox_fixture f;
        f.context.platform = sandbox::sandbox_platform::darwin;
        f.context.unix_sockets = {f.root / "tools" / "tools.sock"};
        const auto settings = wrapped_settings(f);
        CHECK(settings["network"]["allowAllUnixSockets"] == false);
        CHECK(settings["network"]["allowUnixSockets"] ==
              nlohmann::json{f.kernel_dir.string(), (f.root / "tools" / "tools.sock").string()});
        CHECK(lists(settings["filesystem"]["denyWrite"], "/private/tmp/claude"));
    }

    TEST_CASE("a credential folder made since leaves them as they are (it was denied already)") {
        sandbox_fixture f;
        f.context.platform = sandbox::sandbox_platform::darwin;
        const auto settings = app::srt_kernel_settings(f.sandbox, f.context);
        const auto before = settings(f.kernel_dir);
        CHECK(before.find((f.home / ".aws").string()) != std::string::npos);
        std::filesystem::create_directories(f.home / ".aws");
        CHECK(settings(f.kernel_dir) == before);
    }

    TEST_CASE("a path below a link is denied also as the link resolves") {
        sandbox_fixture f;
        f.context.platform = sandbox::sandbox_platform::darwin;
        std::filesystem::create_directories(f.root / "real-home");
        std::filesystem::remove(f.home);
        std::filesystem::create_directory_symlink(f.root / "real-home", f.home);
        const auto settings = wrapped_settings(f);
        CHECK(lists(settings["filesystem"]["denyRead"], f.home / ".ssh"));
        CHECK(lists(settings["filesystem"]["denyRead"], f.root / "real-home" / ".ssh"));
    }
}

TEST_CASE("on linux the same wrapper holds the missing protected paths with placeholders") {
    sandbox_fixture f;
    f.context.placeholders =
        std::make_shared<sandbox::placeholder_hold>(f.workspace, f.root / "holds");
    const auto settings = wrapped_settings(f);
    CHECK(contents(f.workspace).count(".mcp.json") == 1);
    CHECK(std::filesystem::exists(f.context.placeholders->record_file()));
    CHECK(settings["network"]["allowAllUnixSockets"] == true);
}
