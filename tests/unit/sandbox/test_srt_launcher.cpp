// Finding srt and the command prefix that wraps the kernel.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <fstream>

#include "ipybox/process/executables.hpp"
#include "ipybox/sandbox/srt_launcher.hpp"
#include "test_paths.hpp"

using namespace ipybox::sandbox;
using ipybox::testing::fresh_directory;

namespace {

std::filesystem::path fake_executable(const std::filesystem::path& dir) {
    const auto path = dir / "srt";
    std::ofstream(path) << "#!/bin/sh\n";
    ::chmod(path.c_str(), 0755);
    return path;
}

}  // namespace

TEST_SUITE("sandbox.launcher") {
    TEST_CASE("srt is the given path, else $IPYBOX_SRT, else found on PATH") {
        const auto dir = fresh_directory("srt-find");
        const auto srt = fake_executable(dir);
        CHECK(find_srt(srt, {}) == srt);
        CHECK(find_srt(std::nullopt, {{"IPYBOX_SRT", srt.string()}}) == srt);
        CHECK(find_srt(std::nullopt, {{"PATH", "/nonexistent:" + dir.string()}}) == srt);
    }

    TEST_CASE("a missing or non-executable srt is an error that says how to install it") {
        const auto dir = fresh_directory("srt-missing");
        std::ofstream(dir / "srt") << "not executable";
        CHECK_THROWS_AS(find_srt(dir / "srt", {}), sandbox_unavailable);
        CHECK_THROWS_AS(find_srt(std::nullopt, {{"PATH", "/nonexistent"}}), sandbox_unavailable);
        try {
            find_srt(std::nullopt, {{"IPYBOX_SRT", "/nonexistent/srt"}});
            FAIL("expected sandbox_unavailable");
        } catch (const sandbox_unavailable& e) {
            const std::string what = e.what();
            CHECK(what.find("/nonexistent/srt (IPYBOX_SRT)") != std::string::npos);
            CHECK(what.find("npm install -g @anthropic-ai/sandbox-runtime") != std::string::npos);
        }
    }

    TEST_CASE(
        "an srt the sandboxed kernel could have planted in the workspace is never chosen "
        "(control: the same file outside the workspace is)") {
        const auto workspace = fresh_directory("srt-workspace");
        const auto planted_dir = workspace / ".venv" / "bin";
        std::filesystem::create_directories(planted_dir);
        const auto planted = fake_executable(planted_dir);
        const auto outside = fresh_directory("srt-outside");
        const auto real = fake_executable(outside);
        const std::vector<std::filesystem::path> roots{workspace};
        // On PATH first: passed over for the one after it.
        CHECK(find_srt(std::nullopt, {{"PATH", planted_dir.string() + ":" + outside.string()}}, {},
                       roots) == real);
        // The control: without the workspace named, the planted one wins.
        CHECK(find_srt(std::nullopt, {{"PATH", planted_dir.string() + ":" + outside.string()}}) ==
              planted);
        // Named, or reached through a link from outside: refused, saying why.
        CHECK_THROWS_WITH_AS(find_srt(std::nullopt, {{"IPYBOX_SRT", planted.string()}}, {}, roots),
                             doctest::Contains("lies in the workspace"), sandbox_unavailable);
        const auto link_dir = fresh_directory("srt-link");
        std::filesystem::create_symlink(planted, link_dir / "srt");
        CHECK_THROWS_AS(find_srt(std::nullopt, {{"PATH", link_dir.string()}}, {}, roots),
                        sandbox_unavailable);
        CHECK_THROWS_AS(find_srt(std::nullopt, {}, {planted}, roots), sandbox_unavailable);
    }

    TEST_CASE(
        "path_outside leaves out entries in the workspace, through links too, and relative "
        "ones, keeping the order of the rest") {
        const auto workspace = fresh_directory("path-workspace");
        std::filesystem::create_directories(workspace / ".venv" / "bin");
        const auto links = fresh_directory("path-links");
        std::filesystem::create_symlink(workspace / ".venv" / "bin", links / "venv-bin");
        const std::string path = (workspace / ".venv" / "bin").string() +
                                 ":/usr/bin::bin:" + (links / "venv-bin").string() + ":" +
                                 workspace.string() + ":/bin";
        CHECK(ipybox::process::path_outside(path, {workspace}) == "/usr/bin:/bin");
        CHECK(ipybox::process::path_outside("/usr/bin:/bin", {workspace}) == "/usr/bin:/bin");
    }

    TEST_CASE("the prefix passes the command after -- and the settings file is private") {
        const auto dir = fresh_directory("srt-prefix");
        CHECK(command_prefix("/bin/srt", dir / "s.json") ==
              std::vector<std::string>{"/bin/srt", "--settings", (dir / "s.json").string(), "--"});
        write_settings(dir / "s.json", {{"network", nlohmann::json::object()}});
        struct stat info {};
        REQUIRE(::stat((dir / "s.json").c_str(), &info) == 0);
        CHECK((info.st_mode & 0777) == 0600);
    }
}
