#include "cli_runner.hpp"
#include "test_paths.hpp"

#include <doctest/doctest.h>

using namespace ipybox::testing;

TEST_SUITE("cli.other") {
    TEST_CASE("--version prints the version") {
        const auto r = run_ipybox("--version");
        CHECK(r.exit_code == 0);
        CHECK(r.out.rfind("ipybox 0.", 0) == 0);
    }

    TEST_CASE("doctor reports the interpreter and package versions") {
        const auto r = run_ipybox("doctor");
        CHECK(r.exit_code == 0);
        CHECK(r.out.find("ipykernel") != std::string::npos);
        CHECK(r.out.find("pydantic") != std::string::npos);
        CHECK(r.out.find("/usr/bin/python3") != std::string::npos);
    }

    TEST_CASE("doctor names a missing interpreter and how to fix it") {
        const auto r = run_ipybox("doctor --python /nonexistent/python");
        CHECK(r.exit_code == 3);
        CHECK(r.out.find("apt-get install python3-ipykernel") != std::string::npos);
    }

    TEST_CASE("mcp --sandbox fails closed") {
        const auto r = run_ipybox("mcp --sandbox --workspace " +
                                  shell_quote(fresh_directory("sandbox").string()));
        CHECK(r.exit_code == 3);
        CHECK(r.err.find("refusing to start") != std::string::npos);
        CHECK(r.out.empty());
    }

    TEST_CASE("generate refuses a server name that is not an identifier, before connecting") {
        const auto root = fresh_directory("generate-bad");
        const auto r = run_ipybox("generate --server-name ../evil --server-params '{\"command\":\"true\"}' --root-dir " +
                                  shell_quote((root / "mcptools").string()));
        CHECK(r.exit_code == 2);
        CHECK_FALSE(std::filesystem::exists(root / "evil"));
    }
}
