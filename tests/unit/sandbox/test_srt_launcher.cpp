// Finding srt and the command prefix that wraps the kernel.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <fstream>

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
