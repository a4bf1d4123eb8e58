// The execution state machine of kernel_session against the fake kernel process
// (tests/support/fake_kernel/): readiness, interrupts, timeouts and their escalation to a restart,
// a kernel dying mid-cell, reset with and without a spare. Short timeouts keep each test within
// milliseconds; no test waits on a clock it could not control.
#include <doctest/doctest.h>

#include <csignal>

#include "fake_session_fixture.hpp"

using namespace ipybox::kernel;
using namespace std::chrono_literals;
using ipybox::testing::fake_session_fixture;

namespace {

// The folder of the kernel that runs the session's next cell.
std::filesystem::path running_kernel_directory(kernel_session& session) {
    return std::filesystem::path(session.run("whoami").result.text).parent_path();
}

// Why start() failed, or "" if it did not.
std::string start_failure(kernel_session& session) {
    try {
        session.start();
    } catch (const kernel_start_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_SUITE("kernel.session") {
    TEST_CASE_FIXTURE(fake_session_fixture,
                      "a started kernel is ready and loses no output of its first cell") {
        kernel_session session(options());
        session.start();
        CHECK(session.kernel_pid() > 0);
        const auto result = session.run("print first\nprint second").result;
        CHECK(result.text == "first\nsecond");
        CHECK(result.execution_count == 1);
    }

    TEST_CASE_FIXTURE(fake_session_fixture,
                      "a kernel is not ready until its kernel_info request echoes on IOPub") {
        auto o = options(false, "mute");
        o.start_timeout = 100ms;
        kernel_session session(o);
        CHECK(start_failure(session).find("did not become ready in time") != std::string::npos);
    }

    TEST_CASE_FIXTURE(fake_session_fixture,
                      "a kernel that exits during start-up fails the start, quoting its output") {
        kernel_session session(options(false, "exit"));
        const auto failure = start_failure(session);
        CHECK(failure.find("exited during start-up") != std::string::npos);
        CHECK(failure.find("the fake kernel was told not to start") != std::string::npos);
    }

    TEST_CASE_FIXTURE(fake_session_fixture,
                      "cancel interrupts the running cell, which ends as cancelled with the "
                      "kernel's state kept") {
        kernel_session session(options());
        session.run("set 7");
        const int pid = session.kernel_pid();
        auto stream = session.execute("print started\nsleep 10000\nprint never", std::nullopt);
        auto chunk = stream->next();
        REQUIRE(chunk);
        CHECK(chunk->text == "started\n");
        session.cancel();
        while (!stream->finished()) stream->next();
        const auto outcome = stream->finish();
        CHECK(outcome.ending == execution_outcome::kind::cancelled);
        CHECK(outcome.result.text == "started");
        stream.reset();
        CHECK(session.kernel_pid() == pid);
        CHECK(session.run("get").result.text == "7");
    }

    TEST_CASE_FIXTURE(fake_session_fixture, "a timeout interrupts the kernel and keeps its state") {
        kernel_session session(options());
        session.run("set 7");
        const int pid = session.kernel_pid();
        const auto outcome = session.run("print before\nsleep 10000", 50ms);
        REQUIRE(outcome.ending == execution_outcome::kind::timeout);
        CHECK(outcome.state_kept);
        CHECK(outcome.result.text == "before");
        CHECK(outcome.message.find("timeout of 0.05 s") != std::string::npos);
        CHECK(session.kernel_pid() == pid);
        CHECK(session.run("get").result.text == "7");
    }

    TEST_CASE_FIXTURE(fake_session_fixture,
                      "a timed-out cell that ignores the interrupt gets the kernel restarted after "
                      "the grace period") {
        kernel_session session(options());
        session.run("set 7");
        const int pid = session.kernel_pid();
        const auto began = std::chrono::steady_clock::now();
        const auto outcome = session.run("stubborn 10000", 50ms);
        REQUIRE(outcome.ending == execution_outcome::kind::timeout);
        CHECK_FALSE(outcome.state_kept);
        CHECK(outcome.message.find("did not stop when interrupted") != std::string::npos);
        CHECK(std::chrono::steady_clock::now() - began < 5s);
        CHECK(session.kernel_pid() != pid);
        CHECK(session.run("get").result.text == "unset");
    }

    TEST_CASE_FIXTURE(
        fake_session_fixture,
        "a cancelled cell that ignores the interrupt ends cancelled, in a restarted kernel") {
        kernel_session session(options());
        session.start();
        const int pid = session.kernel_pid();
        auto stream = session.execute("print started\nstubborn 10000", std::nullopt);
        REQUIRE(stream->next());
        session.cancel();
        while (!stream->finished()) stream->next();
        const auto outcome = stream->finish();
        CHECK(outcome.ending == execution_outcome::kind::cancelled);
        REQUIRE(outcome.result.notices.size() == 1);
        CHECK(outcome.result.notices[0].find("the kernel was restarted") != std::string::npos);
        stream.reset();
        CHECK(session.kernel_pid() != pid);
    }

    TEST_CASE_FIXTURE(fake_session_fixture,
                      "a kernel that dies mid-cell fails the cell at once, and the next cell runs "
                      "in a fresh kernel that says so") {
        kernel_session session(options());
        session.run("set 7");
        const int pid = session.kernel_pid();
        // Killed like the OOM killer would, once its output is in: what it printed is kept.
        auto stream = session.execute("print partial\nsleep 10000", std::nullopt);
        REQUIRE(stream->next());
        REQUIRE(::kill(pid, SIGKILL) == 0);
        while (!stream->finished()) stream->next();
        const auto outcome = stream->finish();
        REQUIRE(outcome.ending == execution_outcome::kind::kernel_died);
        CHECK_FALSE(outcome.state_kept);
        CHECK(outcome.result.text == "partial");
        CHECK(outcome.message.find("SIGKILL") != std::string::npos);
        stream.reset();
        const auto result = session.run("get").result;
        CHECK(result.text == "unset");
        REQUIRE(result.notices.size() == 1);
        CHECK(result.notices[0].find("The previous kernel died") != std::string::npos);
        CHECK(session.kernel_pid() != pid);
    }

    TEST_CASE_FIXTURE(fake_session_fixture,
                      "code with a NUL byte ends at once as a ValueError, and no kernel starts") {
        kernel_session session(options());
        auto stream = session.execute(std::string("print a\0b", 10), std::nullopt);
        CHECK_FALSE(stream->wait_started());
        REQUIRE(stream->finished());
        const auto outcome = stream->finish();
        CHECK(outcome.ending == execution_outcome::kind::exception);
        CHECK(outcome.ename == "ValueError");
        CHECK(outcome.message.find("NUL byte (at byte 7)") != std::string::npos);
        stream.reset();
        CHECK(session.kernel_pid() == 0);
        // Control: the same code without the NUL runs.
        CHECK(session.run("print ab").result.text == "ab");
    }

    TEST_CASE_FIXTURE(fake_session_fixture, "an exception in a cell fails only that cell") {
        kernel_session session(options());
        const auto outcome = session.run("print before\nraise ValueError bad value\nprint never");
        REQUIRE(outcome.ending == execution_outcome::kind::exception);
        CHECK(outcome.ename == "ValueError");
        CHECK(outcome.evalue == "bad value");
        CHECK(outcome.message.starts_with("ValueError: bad value"));
        CHECK(outcome.result.text == "before");
        CHECK(session.run("print after").result.text == "after");
    }

    TEST_CASE_FIXTURE(
        fake_session_fixture,
        "reset with a spare swaps in the kernel started beforehand and starts the next spare") {
        kernel_session session(options(true));
        session.run("set 7");
        REQUIRE(starts.wait_for_count(2));  // the current kernel, then the spare
        const auto spare = starts.at(1);
        session.reset();
        CHECK(running_kernel_directory(session) == spare);
        CHECK(session.run("get").result.text == "unset");
        session.stop();
        CHECK(starts.count() == 3);
    }

    TEST_CASE_FIXTURE(fake_session_fixture,
                      "reset without a spare starts a fresh kernel then and only then") {
        kernel_session session(options(false));
        session.run("set 7");
        CHECK(starts.count() == 1);
        session.reset();
        CHECK(starts.count() == 2);
        CHECK(running_kernel_directory(session) == starts.at(1));
        CHECK(session.run("get").result.text == "unset");
        session.stop();
        CHECK(starts.count() == 2);
    }
}
