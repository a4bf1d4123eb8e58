// The settings a sandboxed kernel would get, computed without writing anything
// (native/app/executor/src/kernel_sandboxing.hpp): what a kernel template compares before each
// fork, so that a kernel forked from it gets the sandbox a cold kernel would get now.
#include <doctest/doctest.h>

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
