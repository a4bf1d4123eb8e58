// Containment of a real kernel: it holds none of ipybox's descriptors, everything it starts ends
// with it on every path (reset, restart after a hung cell, death, stop), limits end a cell with an
// error that names them and leave the session usable; plus inputs that used to cost the state.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <thread>

#include "executor_fixture.hpp"
#include "process_inspection.hpp"
#include "test_paths.hpp"

using namespace ipybox;
using namespace std::chrono_literals;
using ipybox::testing::eventually_gone;
using ipybox::testing::executor_options_for;
using ipybox::testing::expect_error;
using ipybox::testing::process_alive;
using ipybox::testing::start_escaping_child;

TEST_SUITE("kernel.containment") {
    TEST_CASE("a kernel shares no socket with ipybox, only the pipes handed to it") {
        // Made before the kernel starts, without close-on-exec, as Asio and ZeroMQ do.
        int pair[2];
        REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
        code_executor executor(executor_options_for("fds-plain"));
        executor.start();
        const auto shared = testing::shared_sockets_and_pipes(::getpid(), executor.kernel_pid());
        for (const auto& target : shared) {
            CAPTURE(target);
            CHECK(target.rfind("pipe:", 0) == 0);  // the lifeline and the output pipe
        }
        CHECK(shared.size() <= 2);
        ::close(pair[0]);
        ::close(pair[1]);
    }

    TEST_CASE("a kernel that closes or replaces the descriptors it was given keeps working") {
        auto options = executor_options_for("fds-replaced");
        code_executor executor(options);
        executor.execute(
            "import os, stat\n"
            "null = os.open(os.devnull, os.O_RDWR)\n"
            "for fd in (0, 1, 2):\n"
            "    os.dup2(null, fd)\n"
            "for fd in range(3, 64):\n"
            "    try:\n"
            "        if stat.S_ISFIFO(os.fstat(fd).st_mode):\n"
            "            os.close(fd)\n"
            "    except OSError:\n"
            "        pass");
        CHECK(executor.execute("print('still here')").text == "still here");
        const int escaped = start_escaping_child(executor, options.workspace / "pid");
        REQUIRE(escaped > 0);
        executor.stop();
        CHECK(eventually_gone(escaped));
    }

    TEST_CASE("a grandchild that left the kernel's session ends with reset, not later") {
        auto options = executor_options_for("tree-reset");
        code_executor executor(options);
        const int escaped = start_escaping_child(executor, options.workspace / "pid");
        REQUIRE(escaped > 0);
        REQUIRE(process_alive(escaped));
        executor.reset();
        CHECK(eventually_gone(escaped));
    }

    TEST_CASE("a grandchild ends when its kernel dies, and when the executor stops") {
        auto options = executor_options_for("tree-death");
        {
            code_executor executor(options);
            const int escaped = start_escaping_child(executor, options.workspace / "a");
            REQUIRE(escaped > 0);
            const auto error = expect_error(executor, "import os, signal\nos.kill(os.getpid(), 9)");
            CHECK(error.error_kind() == code_execution_error::kind::kernel_died);
            executor.execute("1");  // the dead kernel is replaced, its tree ended
            CHECK(eventually_gone(escaped));
            const int second = start_escaping_child(executor, options.workspace / "b");
            REQUIRE(second > 0);
            executor.stop();
            CHECK(eventually_gone(second));
        }
    }

    TEST_CASE("a grandchild ends when a hung cell forces a restart") {
        auto options = executor_options_for("tree-restart");
        code_executor executor(options);
        const int escaped = start_escaping_child(executor, options.workspace / "pid");
        REQUIRE(escaped > 0);
        const auto error = expect_error(executor, testing::ignores_interrupts, 500ms);
        CHECK_FALSE(error.state_kept());
        CHECK(eventually_gone(escaped));
    }

    TEST_CASE(
        "the memory limit stops the kernel with an error that names it and the next cell runs") {
        auto options = executor_options_for("limit-memory");
        options.limits.memory_bytes = 256ULL << 20;
        code_executor executor(options);
        executor.execute("x = 1");
        const auto error = expect_error(
            executor, "hog = bytearray(2 * 1024**3)\nhog[::4096] = b'y' * len(hog[::4096])");
        const std::string text = error.what();
        CAPTURE(text);
        CHECK_FALSE(error.state_kept());
        const auto summary = executor.containment_summary();
        CAPTURE(summary);
        if (summary.rfind("rlimits", 0) == 0 && summary.find("watchdog") == std::string::npos) {
            CHECK(error.ename() == "MemoryError");
            CHECK(text.find("memory limit is 256 MiB") != std::string::npos);
        } else {  // a cgroup's OOM kill, or the memory watchdog's (no cgroups: Darwin)
            CHECK(error.error_kind() == code_execution_error::kind::kernel_died);
            CHECK(text.find("exceeded its memory limit of 256 MiB and was stopped") !=
                  std::string::npos);
            CHECK(text.find("next execution starts in a fresh kernel") != std::string::npos);
        }
        CHECK(executor.execute("print('fresh')").text == "fresh");
    }

    TEST_CASE("a fork loop is refused at the process limit and the kernel keeps its state") {
        auto options = executor_options_for("limit-fork");
        options.limits.processes = 64;
        code_executor executor(options);
        executor.execute("kept = 42");  // the kernel, and with it the containment, starts here
        if (executor.containment_summary().rfind("rlimits", 0) == 0 && ::geteuid() == 0) {
            MESSAGE("rlimits only, as root: RLIMIT_NPROC does not apply; not checked");
            return;
        }
        const auto error = expect_error(executor,
                                        "import subprocess\n"
                                        "procs = []\n"
                                        "while True:\n"
                                        "    procs.append(subprocess.Popen(['sleep', '30']))");
        const std::string text = error.what();
        CAPTURE(text);
        CHECK(error.error_kind() == code_execution_error::kind::exception);
        // "processes and threads" where the limit counts threads (not Darwin's RLIMIT_NPROC).
        CHECK(text.find("limit of 64 processes") != std::string::npos);
        CHECK(executor.execute("for p in procs: p.kill()\nprint(kept)").text == "42");
    }

    TEST_CASE("a thread loop is refused at the process limit and the kernel keeps its state") {
        auto options = executor_options_for("limit-threads");
        options.limits.processes = 64;
        code_executor executor(options);
        executor.execute("kept = 7");  // the kernel, and with it the containment, starts here
        if (executor.containment_summary().rfind("rlimits", 0) == 0 && ::geteuid() == 0) {
            MESSAGE("rlimits only, as root: RLIMIT_NPROC does not apply; not checked");
            return;
        }
        if (!IPYBOX_TEST_LINUX && executor.containment_summary().rfind("rlimits", 0) == 0) {
            MESSAGE("Darwin's RLIMIT_NPROC counts no threads; not checked");
            return;
        }
        const auto error =
            expect_error(executor,
                         "import threading, time\n"
                         "stop = threading.Event()\n"
                         "while True:\n"
                         "    threading.Thread(target=stop.wait, daemon=True).start()");
        CHECK(std::string(error.what()).find("limit of 64 processes and threads") !=
              std::string::npos);
        CHECK(executor.execute("stop.set()\nprint(kept)").text == "7");
    }

    TEST_CASE("a huge file write stops at the file-size limit with an error that names it") {
        auto options = executor_options_for("limit-file");
        options.limits.file_size_bytes = 10ULL << 20;
        code_executor executor(options);
        executor.execute("kept = 'yes'");
        const auto error = expect_error(executor,
                                        "with open('big.bin', 'wb') as f:\n"
                                        "    block = b'x' * (1 << 20)\n"
                                        "    for _ in range(10 * 1024):  # 10 GB\n"
                                        "        f.write(block)");
        const std::string text = error.what();
        CAPTURE(text);
        CHECK(text.find("File too large") != std::string::npos);
        CHECK(text.find("file-size limit of 10 MiB") != std::string::npos);
        CHECK(std::filesystem::file_size(options.workspace / "big.bin") <= (10ULL << 20));
        CHECK(executor.execute("print(kept)").text == "yes");
    }

    TEST_CASE(
        "a stopped kernel (SIGSTOP) is found hung by its heartbeat, ended with its tree "
        "and replaced") {
        auto options = executor_options_for("hung");
        code_executor executor(options);
        executor.execute("x = 1");
        const int escaped = start_escaping_child(executor, options.workspace / "pid");
        REQUIRE(escaped > 0);
        auto stream = executor.stream("import os, signal\nos.kill(os.getpid(), signal.SIGSTOP)");
        try {
            while (stream.next()) {
            }
            FAIL("no error");
        } catch (const code_execution_error& error) {
            CHECK(error.error_kind() == code_execution_error::kind::kernel_died);
            CHECK(std::string(error.what()).find("stopped answering") != std::string::npos);
        }
        CHECK(eventually_gone(escaped));  // before anything else runs
        CHECK(executor.execute("print('fresh')").text == "fresh");
    }

    TEST_CASE("code with a NUL byte is refused before it reaches the kernel and the state stays") {
        code_executor executor(executor_options_for("nul"));
        executor.execute("kept = 5");
        const auto error = expect_error(executor, std::string("print('a')\0print('b')", 21));
        CHECK(error.error_kind() == code_execution_error::kind::exception);
        CHECK(error.ename() == "ValueError");
        CHECK(std::string(error.what()).find("NUL byte (at byte 10)") != std::string::npos);
        CHECK(executor.execute("print(kept)").text == "5");
    }

    TEST_CASE("invalid UTF-8 on the kernel's descriptors never silences later output") {
        code_executor executor(executor_options_for("bad-utf8"));
        const auto first = executor.execute(
            "import os, subprocess, time\n"
            "os.write(1, b'bad \\xff bytes\\n')\n"
            "subprocess.run(['printf', 'caf\\\\351\\\\n'])\n"
            "subprocess.run(['echo', 'same cell'])\n"
            "time.sleep(0.3)");
        CHECK(first.text.find("bad \xef\xbf\xbd bytes") != std::string::npos);
        CHECK(first.text.find("caf\xef\xbf\xbd") != std::string::npos);
        CHECK(first.text.find("same cell") != std::string::npos);
        const auto later = executor.execute(
            "import subprocess, time\nsubprocess.run(['echo', 'after'])\ntime.sleep(0.3)");
        CHECK(later.text == "after");
    }
}
