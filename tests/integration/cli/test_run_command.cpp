// `ipybox run`: files and snippets in command-line order in one kernel, streamed output, errors
// on stderr, exit codes.
#include <doctest/doctest.h>

#include <fstream>

#include "cli_runner.hpp"
#include "test_paths.hpp"

using namespace ipybox::testing;

namespace {

std::string workspace_flag(const std::string& name) {
    return "--workspace " + shell_quote(fresh_directory(name).string());
}

}  // namespace

TEST_SUITE("cli.run") {
    TEST_CASE("snippets share one kernel: -c x=41 -c print(x+1) prints 42") {
        const auto r =
            run_ipybox("run " + workspace_flag("run-state") + " -c 'x=41' -c 'print(x+1)'");
        CHECK(r.exit_code == 0);
        CHECK(r.out == "42\n");
    }

    TEST_CASE("files and snippets run in command-line order") {
        const auto dir = fresh_directory("run-order");
        std::ofstream(dir / "first.py") << "order = ['file']\n";
        std::ofstream(dir / "last.py") << "order.append('last file'); print(order)\n";
        const auto r = run_ipybox("run --workspace " + shell_quote(dir.string()) + " " +
                                  shell_quote((dir / "first.py").string()) +
                                  " -c \"order.append('snippet')\" " +
                                  shell_quote((dir / "last.py").string()));
        CHECK(r.exit_code == 0);
        CHECK(r.out == "['file', 'snippet', 'last file']\n");
    }

    TEST_CASE("an exception goes to stderr with its traceback and exits 1") {
        const auto r = run_ipybox("run " + workspace_flag("run-error") +
                                  " -c 'print(1)' -c '1/0' -c 'print(3)'");
        CHECK(r.exit_code == 1);
        CHECK(r.out == "1\n");
        CHECK(r.err.find("ZeroDivisionError: division by zero") != std::string::npos);
        CHECK(r.err.find("Traceback") != std::string::npos);
    }

    TEST_CASE("stderr output of the code goes to stderr") {
        const auto r =
            run_ipybox("run " + workspace_flag("run-stderr") +
                       " -c 'import sys; print(\"to-err\", file=sys.stderr); print(\"to-out\")'");
        CHECK(r.out == "to-out\n");
        CHECK(r.err.find("to-err") != std::string::npos);
    }

    TEST_CASE("a timeout interrupts the code, says so on stderr and exits 1") {
        const auto r = run_ipybox("run " + workspace_flag("run-timeout") +
                                  " --timeout 1 -c 'import time; time.sleep(30)'");
        CHECK(r.exit_code == 1);
        CHECK(r.err.find("exceeded the timeout of 1.00 s") != std::string::npos);
    }

    TEST_CASE("a plot is saved and announced") {
        const auto r =
            run_ipybox("run " + workspace_flag("run-plot") +
                       " -c 'import matplotlib.pyplot as plt; plt.plot([1,2]); plt.show()'");
        CHECK(r.exit_code == 0);
        CHECK(r.out.find("[image saved: ") == 0);
        CHECK(r.out.find(".png]") != std::string::npos);
    }

    TEST_CASE("an interpreter without ipykernel exits 3 naming it and the fix") {
        const auto r = run_ipybox("run " + workspace_flag("run-bad-python") +
                                  " --python /bin/false -c 'print(1)'");
        CHECK(r.exit_code == 3);
        CHECK(r.err.find("/bin/false") != std::string::npos);
        CHECK(r.err.find("ipykernel") != std::string::npos);
    }

    TEST_CASE("--env and KERNEL_ENV_ variables reach the kernel, other variables do not") {
        const auto r = run_ipybox(
            "run " + workspace_flag("run-env") +
                " --env A=one -c 'import os; print(os.environ[\"A\"], os.environ[\"B\"], "
                "os.environ.get(\"KERNEL_ENV_B\"), os.environ.get(\"IPYBOX_CLI_SECRET\"))'",
            "", "KERNEL_ENV_B=two IPYBOX_CLI_SECRET=hidden");
        CHECK(r.exit_code == 0);
        CHECK(r.out == "one two None None\n");
    }

    TEST_CASE("usage errors exit 2") {
        CHECK(run_ipybox("run").exit_code == 2);
        CHECK(run_ipybox("run --no-such-flag -c 1").exit_code == 2);
        CHECK(run_ipybox("run --approve maybe -c 1").exit_code == 2);
        CHECK(run_ipybox("run /nonexistent/file.py").exit_code == 2);
    }
}
