// Timeouts, interrupts, cancellation and kernels that die: the session must stay usable and the
// caller must learn what happened to the kernel's state.
#include <doctest/doctest.h>

#include <csignal>
#include <thread>

#include "executor_fixture.hpp"

using namespace ipybox;
using namespace std::chrono_literals;
using ipybox::testing::executor_options_for;
using ipybox::testing::expect_error;

TEST_SUITE("kernel.timeouts") {
    TEST_CASE("a timeout interrupts the code, says the limit, and keeps the state") {
        code_executor executor(executor_options_for("timeout"));
        executor.execute("x = 0");
        const auto error = expect_error(executor, "import time\nwhile True:\n    x += 1", 500ms);
        CHECK(error.error_kind() == code_execution_error::kind::timeout);
        CHECK(error.state_kept());
        CHECK(std::string(error.what()).find("0.50 s") != std::string::npos);
        CHECK(executor.execute("x > 0").text == "True");
        CHECK(executor.execute("print('recovered')").text == "recovered");
    }

    TEST_CASE("code that swallows KeyboardInterrupt cannot wedge the session") {
        auto options = executor_options_for("swallow");
        code_executor executor(options);
        executor.execute("marker = 1");
        const auto error = expect_error(executor, testing::ignores_interrupts, 500ms);
        CHECK(error.error_kind() == code_execution_error::kind::timeout);
        CHECK_FALSE(error.state_kept());
        CHECK(std::string(error.what()).find("restarted") != std::string::npos);
        CHECK(executor.execute("print('alive')").text == "alive");
        CHECK(expect_error(executor, "marker").ename() == "NameError");
    }

    TEST_CASE("cancel() from another thread ends the execution as cancelled") {
        code_executor executor(executor_options_for("cancel"));
        auto stream = executor.stream("import time\nprint('started', flush=True)\ntime.sleep(30)");
        std::thread canceller;
        std::optional<code_execution_result> result;
        while (auto event = stream.next()) {
            if (std::holds_alternative<code_execution_chunk>(*event) && !canceller.joinable()) {
                // The code is running now: cancel it from another thread.
                canceller = std::thread([&] { executor.cancel(); });
            } else if (auto* done = std::get_if<code_execution_result>(&*event)) {
                result = *done;
            }
        }
        canceller.join();
        REQUIRE(result);
        CHECK(result->cancelled);
        CHECK(result->text == "started");
        CHECK(executor.execute("print('usable')").text == "usable");
    }

    TEST_CASE("cancel() when nothing runs does nothing") {
        code_executor executor(executor_options_for("cancel-idle"));
        executor.execute("y = 1");
        executor.cancel();
        CHECK(executor.execute("y").text == "1");
    }
}

TEST_SUITE("kernel.faults") {
    TEST_CASE("a kernel that exits mid-execution fails it with a clear error, not a hang") {
        code_executor executor(executor_options_for("exit"));
        executor.execute("state = 'old'");
        // The generous timeout only guards against a hang; death must be reported long before.
        const auto error = expect_error(executor, "import os\nos._exit(3)", 60s);
        CHECK(error.error_kind() == code_execution_error::kind::kernel_died);
        CHECK(std::string(error.what()).find("exited with code 3") != std::string::npos);
        CHECK_FALSE(error.state_kept());
    }

    TEST_CASE("the execution after a kernel death runs in a fresh kernel with a notice") {
        code_executor executor(executor_options_for("after-death"));
        executor.execute("state = 'old'");
        expect_error(executor, "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)", 60s);
        const auto result = executor.execute("print('fresh')");
        CHECK(result.text == "fresh");
        REQUIRE(result.notices.size() == 1);
        CHECK(result.notices[0].find("died") != std::string::npos);
        CHECK(expect_error(executor, "state").ename() == "NameError");
    }

    TEST_CASE("a segfault in the kernel is reported as a death by signal") {
        code_executor executor(executor_options_for("segv"));
        const auto error = expect_error(executor, "import ctypes\nctypes.string_at(0)", 60s);
        CHECK(error.error_kind() == code_execution_error::kind::kernel_died);
        CHECK(std::string(error.what()).find("SIGSEGV") != std::string::npos);
    }

    TEST_CASE("a kernel killed while idle is replaced at the next execution") {
        code_executor executor(executor_options_for("idle-kill"));
        executor.execute("1");
        const int pid = executor.kernel_pid();
        REQUIRE(pid > 0);
        ::kill(pid, SIGKILL);
        std::this_thread::sleep_for(200ms);
        const auto result = executor.execute("print('replaced')");
        CHECK(result.text == "replaced");
        CHECK(result.notices.size() == 1);
        CHECK(executor.kernel_pid() != pid);
    }
}
