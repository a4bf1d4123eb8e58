#include "cli_runner.hpp"
#include "test_paths.hpp"

#include <doctest/doctest.h>

#include <cstdlib>

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

    TEST_CASE("a kernel does not outlive an ipybox process that is killed") {
        const auto dir = fresh_directory("orphan");
        // ipybox runs in the background; its kernel writes its pid, then ipybox gets SIGKILL.
        const std::string script =
            "cd " + shell_quote(dir.string()) + " && (" + shell_quote(ipybox_executable().string()) +
            " run --workspace . -c 'import os, time; open(\"kpid\", \"w\").write(str(os.getpid())); "
            "time.sleep(120)' > /dev/null 2>&1 & echo $! > ipid) ; "
            "for i in $(seq 300); do [ -s kpid ] && break; sleep 0.1; done; "
            "kill -KILL $(cat ipid); "
            "for i in $(seq 100); do kill -0 $(cat kpid) 2>/dev/null || exit 0; sleep 0.1; done; exit 1";
        CHECK(std::system(("sh -c " + shell_quote(script)).c_str()) == 0);
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
