// The settings a sandboxed kernel would get, computed without writing anything
// (native/app/executor/src/kernel_sandboxing.hpp): what a kernel template compares before each
// fork, so that a kernel forked from it gets the sandbox a cold kernel would get now.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>

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

}  // namespace

TEST_CASE("on Linux the settings are those pinned in tests/golden/sandbox/linux_kernel.json") {
    sandbox_fixture f;
    furnish(f);
    const auto settings = portable_settings(f);
    const auto golden = testing::source_dir() / "tests/golden/sandbox/linux_kernel.json";
    if (std::getenv("IPYBOX_UPDATE_GOLDEN") != nullptr) {
        std::filesystem::create_directories(golden.parent_path());
        std::ofstream(golden) << settings.dump(2) << "\n";
    }
    std::ifstream expected(golden);
    REQUIRE_MESSAGE(expected.good(), golden.string() << " is missing (IPYBOX_UPDATE_GOLDEN=1)");
    CHECK(settings == nlohmann::json::parse(expected));
}
