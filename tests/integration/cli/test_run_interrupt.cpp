// `ipybox run` and Ctrl-C (SIGINT, taken on the executor's loop): the first interrupts the running
// code, the second quits.
#include <doctest/doctest.h>

#include <csignal>

#include "cli_runner.hpp"
#include "test_paths.hpp"

using namespace ipybox::testing;

namespace {

std::string run_code(const std::string& name, const std::string& code) {
    return "run --workspace " + shell_quote(fresh_directory(name).string()) + " -c " +
           shell_quote(code);
}

}  // namespace

TEST_SUITE("cli.run") {
    TEST_CASE("Ctrl-C interrupts the running code, says so and exits 1") {
        background_ipybox run(run_code("run-ctrl-c",
                                       "import time\nprint('started', flush=True)\n"
                                       "time.sleep(120)\nprint('not interrupted')"));
        REQUIRE(run.wait_for_output("started"));
        run.send_signal(SIGINT);
        const auto r = run.finish();
        CAPTURE(r.err);
        CHECK(r.exit_code == 1);
        CHECK(r.out.find("not interrupted") == std::string::npos);
        CHECK(r.err.find("interrupting (press Ctrl-C again to quit)") != std::string::npos);
        CHECK(r.err.find("ipybox: cancelled") != std::string::npos);
    }

    TEST_CASE("a second Ctrl-C quits with 130 while the code still runs") {
        // Code that survives the first interrupt (it catches KeyboardInterrupt).
        background_ipybox run(run_code("run-ctrl-c-twice",
                                       "import time\nprint('started', flush=True)\n"
                                       "while True:\n"
                                       "    try:\n"
                                       "        time.sleep(120)\n"
                                       "    except KeyboardInterrupt:\n"
                                       "        print('caught', flush=True)"));
        REQUIRE(run.wait_for_output("started"));
        run.send_signal(SIGINT);
        REQUIRE(run.wait_for_output("caught"));
        run.send_signal(SIGINT);
        const auto r = run.finish();
        CAPTURE(r.err);
        CHECK(r.exit_code == 130);
    }
}
