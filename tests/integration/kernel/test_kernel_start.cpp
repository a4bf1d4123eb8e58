// Kernels that cannot start: the error names the interpreter and the fix, within the timeout.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

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

    TEST_CASE("modules planted in the workspace do not replace those the kernel's start imports") {
        auto options = executor_options_for("planted-modules");
        const auto marker = options.workspace / "planted-ran";
        // Each records that it was imported, then breaks the import (as a hostile one would).
        const std::string payload = "open(" + nlohmann::json(marker.string()).dump() +
                                    ", 'a').write(__name__ + '\\n')\nraise SystemExit(9)\n";
        for (const char* name : {"logging.py", "json.py", "threading.py", "traitlets.py", "zmq.py",
                                 "tornado.py", "asyncio.py", "signal.py"}) {
            std::ofstream(options.workspace / name) << payload;
        }
        // Control: a Python started in the workspace, as the kernel is, imports the planted one.
        const auto control = "cd " + options.workspace.string() +
                             " && /usr/bin/python3 -c 'import threading' 2>/dev/null";
        CHECK(std::system(control.c_str()) != 0);
        REQUIRE(std::filesystem::exists(marker));
        std::filesystem::remove(marker);

        code_executor executor(options);
        CHECK(executor.execute("print('started')").text == "started");
        CHECK_FALSE(std::filesystem::exists(marker));
        // The workspace is importable for the user's own code, as before.
        std::ofstream(options.workspace / "helpers.py") << "VALUE = 42\n";
        CHECK(executor.execute("import helpers\nprint(helpers.VALUE)").text == "42");
    }
}
