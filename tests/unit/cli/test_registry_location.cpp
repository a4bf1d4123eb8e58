// The server registry's file name is a stable SHA-256 of the workspace's canonical path, and a
// registry under the name older releases gave it (std::hash of the path) is moved to it exactly
// once, never through a link and never over a newer registry.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "registry_location.hpp"
#include "test_paths.hpp"

namespace fs = std::filesystem;
using namespace ipybox;

namespace {

void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
}

std::string read(const fs::path& path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct state_home {
    fs::path root = testing::fresh_directory("registry-location");
    fs::path workspace = root / "project";
    fs::path directory = root / "state" / "ipybox" / "workspaces";
    process::environment_map environment{{"XDG_STATE_HOME", (root / "state").string()},
                                         {"HOME", "/nonexistent"}};

    fs::path legacy() const { return directory / cli::legacy_registry_file_name(workspace); }
};

}  // namespace

TEST_SUITE("cli.registry_location") {
    TEST_CASE("the name is the SHA-256 of the canonical path: a golden value") {
        // sha256(b"/ipybox-test-nonexistent/project"), computed with Python's hashlib.
        const std::string golden =
            "128df76a4f85a94e9d07578adf4a3cb1d08be2950994e904823ea46d82f8a73a.json";
        CHECK(cli::registry_file_name("/ipybox-test-nonexistent/project") == golden);
        // Spellings of the same folder give the same name.
        CHECK(cli::registry_file_name("/ipybox-test-nonexistent/project/") == golden);
        CHECK(cli::registry_file_name("/ipybox-test-nonexistent/./x/../project") == golden);
        CHECK(cli::registry_file_name("/ipybox-test-nonexistent/other") != golden);
    }

    TEST_CASE("a link to the workspace names the same registry as the workspace") {
        const state_home home;
        fs::create_directories(home.workspace);
        const auto link = home.root / "link";
        fs::create_directory_symlink(home.workspace, link);
        CHECK(cli::registry_file_name(link) == cli::registry_file_name(home.workspace));
    }

    TEST_CASE("a registry under the old name is moved to the new one, exactly once") {
        const state_home home;
        write(home.legacy(), R"({"servers": {"fs": {}}})");
        ::chmod(home.legacy().c_str(), 0600);

        const auto file = cli::registry_file(home.environment, home.workspace);
        CHECK(file == home.directory / cli::registry_file_name(home.workspace));
        CHECK(read(file) == R"({"servers": {"fs": {}}})");
        CHECK_FALSE(fs::exists(home.legacy()));
        struct stat info {};
        REQUIRE(::lstat(file.c_str(), &info) == 0);
        CHECK((info.st_mode & 0777) == 0600);  // moved, not copied: its mode goes with it

        // An older ipybox writes its own name again: the new registry stays as it is, and the
        // old file is left alone, every time.
        write(home.legacy(), R"({"servers": {}})");
        for (int i = 0; i < 2; ++i) {
            CHECK(cli::registry_file(home.environment, home.workspace) == file);
            CHECK(read(file) == R"({"servers": {"fs": {}}})");
            CHECK(read(home.legacy()) == R"({"servers": {}})");
        }
    }

    TEST_CASE("without an old registry nothing is created") {
        const state_home home;
        const auto file = cli::registry_file(home.environment, home.workspace);
        CHECK(file.filename() == cli::registry_file_name(home.workspace));
        CHECK_FALSE(fs::exists(home.directory));
    }

    TEST_CASE("a link at the old name is not moved and nothing is read through it") {
        const state_home home;
        const auto outside = home.root / "elsewhere.json";
        write(outside, "not the registry");
        fs::create_directories(home.directory);
        fs::create_symlink(outside, home.legacy());

        const auto file = cli::registry_file(home.environment, home.workspace);
        CHECK_FALSE(fs::exists(fs::symlink_status(file)));  // no link at the new name either
        CHECK(fs::is_symlink(home.legacy()));
        CHECK(read(outside) == "not the registry");
        // The control: a regular file in the link's place moves (the test above).
        fs::remove(home.legacy());
        write(home.legacy(), "{}");
        CHECK(
            cli::migrate_registry_file(home.directory, home.legacy().filename(), file.filename()));
    }

    TEST_CASE("a FIFO at the old name is not moved") {
        const state_home home;
        fs::create_directories(home.directory);
        REQUIRE(::mkfifo(home.legacy().c_str(), 0600) == 0);
        const auto file = cli::registry_file(home.environment, home.workspace);
        CHECK_FALSE(fs::exists(fs::symlink_status(file)));
        CHECK(fs::is_fifo(home.legacy()));
    }

    TEST_CASE("the old name is std::hash of the path as given, in hex") {
        const fs::path workspace = "/ipybox-test-nonexistent/project";
        std::ostringstream expected;
        expected << std::hex << std::hash<std::string>{}(workspace.string()) << ".json";
        CHECK(cli::legacy_registry_file_name(workspace) == expected.str());
    }
}
