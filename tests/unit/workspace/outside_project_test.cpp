// Paths of another project in a recorded registration (issue 41, item 1): a registration saved
// with project A's folders, offered in project B, must have those folders flagged.
#include "ipybox/workspace/outside_project.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include "file_helpers.hpp"

using ipybox::workspace::paths_outside_project;
using nlohmann::json;
using strings = std::vector<std::string>;

TEST_SUITE("workspace.outside_project") {
    TEST_CASE("another project's folders are found, this project's and placeholders are not") {
        const json params = {
            {"command", "node"},
            {"args",
             {"/srv/server.js", "/home/u/projA", "/home/u/projB/data", "${IPYBOX_WORKSPACE}/data",
              "--root=/home/u/projA/data", "relative/dir", "/home/u/projA"}},
            {"cwd", "/home/u/projA"}};
        CHECK(paths_outside_project(params, "/home/u/projB") ==
              strings{"/home/u/projA", "/srv/server.js", "/home/u/projA/data"});
    }

    TEST_CASE("the project itself, with or without a trailing slash, is inside") {
        const json params = {{"args", {"/home/u/projB", "/home/u/projB/", "/home/u/projB/x"}}};
        CHECK(paths_outside_project(params, "/home/u/projB").empty());
        CHECK(paths_outside_project(params, "/home/u/projB/").empty());
    }

    TEST_CASE("a sibling that shares the project's name as a prefix is outside") {
        const json params = {{"args", {"/home/u/projB2", "/home/u/proj"}}};
        CHECK(paths_outside_project(params, "/home/u/projB") ==
              strings{"/home/u/projB2", "/home/u/proj"});
    }

    TEST_CASE("a path that climbs out of the project with .. is outside") {
        const json params = {{"args", {"/home/u/projB/../projA", "/home/u/projB/./data"}}};
        CHECK(paths_outside_project(params, "/home/u/projB") == strings{"/home/u/projB/../projA"});
    }

    TEST_CASE("an existing file is a program or script, not a folder the server works on") {
        char pattern[] = "/tmp/outside-project-XXXXXX";
        REQUIRE(mkdtemp(pattern) != nullptr);
        const std::filesystem::path scratch = pattern;
        ipybox::testing::write_text(scratch / "server.js", "// a script\n");
        const json params = {{"command", (scratch / "server.js").string()},
                             {"args", {(scratch / "server.js").string(), scratch.string()}}};
        CHECK(paths_outside_project(params, "/home/u/projB") == strings{scratch.string()});
        std::filesystem::remove_all(scratch);
    }

    TEST_CASE("odd shapes give nothing and never throw") {
        CHECK(paths_outside_project(json::array({"/x"}), "/p").empty());
        CHECK(paths_outside_project(json{{"args", "/x"}}, "/p").empty());
        CHECK(paths_outside_project(json{{"args", {1, nullptr, json::object()}}, {"cwd", 3}}, "/p")
                  .empty());
    }
}
