// Kernels that cannot start: the error names the interpreter and the fix, within the timeout.
#include <doctest/doctest.h>

#include "executor_fixture.hpp"
#include "test_paths.hpp"

using namespace ipybox;
using namespace std::chrono_literals;
using ipybox::testing::executor_options_for;

TEST_SUITE("kernel.start") {
    TEST_CASE("an interpreter without ipykernel is refused with the install command") {
        auto options = executor_options_for("no-ipykernel");
        // -S hides site-packages, so this Python cannot import ipykernel.
        options.python = testing::write_script(options.workspace, "python-without-site",
                                               "exec /usr/bin/python3 -S \"$@\"");
        code_executor executor(options);
        try {
            executor.start();
            FAIL("start() should have failed");
        } catch (const code_execution_error& e) {
            CHECK(e.error_kind() == code_execution_error::kind::start_failed);
            const std::string text = e.what();
            CHECK(text.find("python-without-site") != std::string::npos);
            CHECK(text.find("cannot import ipykernel") != std::string::npos);
        }
    }

    TEST_CASE("a missing interpreter is named in the error") {
        auto options = executor_options_for("missing-python");
        options.python = "/nonexistent/python3";
        code_executor executor(options);
        CHECK_THROWS_WITH_AS(executor.execute("1"), doctest::Contains("/nonexistent/python3"),
                             code_execution_error);
    }

    TEST_CASE("a kernel that never becomes ready fails within the start timeout") {
        auto options = executor_options_for("never-ready");
        // Answers the interpreter probe, then hangs instead of starting a kernel.
        options.python = testing::write_script(
            options.workspace, "hanging-python",
            "case \"$1\" in -I) exec /usr/bin/python3 \"$@\";; esac\nexec sleep 600");
        options.start_timeout = 3s;
        code_executor executor(options);
        try {
            executor.start();
            FAIL("start() should have failed");
        } catch (const code_execution_error& e) {
            const std::string text = e.what();
            CHECK(text.find("hanging-python") != std::string::npos);
            CHECK(text.find("did not become ready") != std::string::npos);
        }
    }

    TEST_CASE("a kernel that crashes at start-up reports its output") {
        auto options = executor_options_for("crash-start");
        options.python =
            testing::write_script(options.workspace, "crashing-python",
                                  "case \"$1\" in -I) exec /usr/bin/python3 \"$@\";; esac\n"
                                  "echo 'fatal: cannot start kernel' >&2\nexit 7");
        code_executor executor(options);
        try {
            executor.start();
            FAIL("start() should have failed");
        } catch (const code_execution_error& e) {
            const std::string text = e.what();
            CHECK(text.find("exited with code 7") != std::string::npos);
            CHECK(text.find("fatal: cannot start kernel") != std::string::npos);
        }
    }
}
