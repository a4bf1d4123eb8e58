#include <doctest/doctest.h>

#include <condition_variable>
#include <csignal>
#include <mutex>
#include <thread>
#include <variant>

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
        // The second execution is asked for only once the first has printed, so the first holds
        // the kernel; queued behind it, the second runs after it ends. Both sides keep a log:
        // ours of what each thread saw, the kernel's of what ran when.
        std::mutex mutex;
        std::condition_variable changed;
        std::vector<std::string> events;
        const auto record = [&](const std::string& event) {
            std::lock_guard lock(mutex);
            events.push_back(event);
            changed.notify_all();
        };
        std::string first;
        std::thread other([&] {
            auto stream = executor.stream(
                "import time\nran = ['a started']\nprint('a started', flush=True)\n"
                "time.sleep(0.3)\nran.append('a finished')\n'a'");
            while (auto event = stream.next()) {
                if (auto* chunk = std::get_if<code_execution_chunk>(&*event)) {
                    record("a printed " + chunk->text);
                } else if (auto* result = std::get_if<code_execution_result>(&*event)) {
                    first = result->text;
                }
            }
        });
        {
            std::unique_lock lock(mutex);
            CHECK(
                changed.wait_for(lock, std::chrono::seconds(30), [&] { return !events.empty(); }));
        }
        record("b returned " + executor.execute("ran.append('b'); print(ran)").text);
        other.join();
        CHECK(first == "a started\n'a'");
        std::string log;
        for (const auto& event : events) log += (log.empty() ? "" : " | ") + event;
        // The first's chunks all arrive before it ends, and so before the second can start.
        CHECK(log ==
              "a printed a started\n | a printed 'a'\n | "
              "b returned ['a started', 'a finished', 'b']");
    }
}
