#include <doctest/doctest.h>

#include <csignal>
#include <thread>

#include "executor_fixture.hpp"

using namespace ipybox;
using ipybox::testing::executor_options_for;
using ipybox::testing::expect_error;

namespace {

bool process_exists(int pid) {
    return ::kill(pid, 0) == 0;
}

}  // namespace

TEST_SUITE("kernel.lifecycle") {
    TEST_CASE("reset gives a clean kernel and execution continues") {
        auto options = executor_options_for("reset");
        options.keep_spare_kernel = true;
        code_executor executor(options);
        executor.execute("x = 1");
        executor.reset();
        CHECK(expect_error(executor, "x").ename() == "NameError");
        CHECK(executor.execute("print('after reset')").text == "after reset");
    }

    TEST_CASE("reset works repeatedly, without a spare too") {
        code_executor executor(executor_options_for("reset-no-spare"));
        for (int i = 0; i < 3; ++i) {
            executor.execute("y = " + std::to_string(i));
            executor.reset();
            CHECK(expect_error(executor, "y").ename() == "NameError");
        }
    }

    TEST_CASE("reset keeps files in the workspace") {
        auto options = executor_options_for("reset-files");
        code_executor executor(options);
        executor.execute("open('kept.txt', 'w').write('data')");
        executor.reset();
        CHECK(executor.execute("open('kept.txt').read()").text == "'data'");
    }

    TEST_CASE("stop shuts every kernel down, the spare included") {
        auto options = executor_options_for("stop");
        options.keep_spare_kernel = true;
        code_executor executor(options);
        executor.execute("1");
        const int pid = executor.kernel_pid();
        REQUIRE(pid > 0);
        executor.stop();
        CHECK_FALSE(process_exists(pid));
    }

    TEST_CASE("the kernel runs with the chosen interpreter") {
        code_executor executor(executor_options_for("interpreter"));
        executor.start();
        CHECK(executor.execute("import sys; print(sys.executable)").text ==
              executor.python().string());
    }

    TEST_CASE("tcp channels work as well as ipc") {
        auto options = executor_options_for("tcp");
        options.transport = "tcp";
        code_executor executor(options);
        CHECK(executor.execute("print('over tcp')").text == "over tcp");
    }

    TEST_CASE("executions from two threads are queued, not lost") {
        code_executor executor(executor_options_for("queue"));
        std::string first;
        std::thread other(
            [&] { first = executor.execute("import time; time.sleep(0.3); 'a'").text; });
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        const auto second = executor.execute("'b'").text;
        other.join();
        CHECK(first == "'a'");
        CHECK(second == "'b'");
    }
}
