// The one spawner: a child gets exactly the descriptors, environment and directory it is given.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "ipybox/process/host_python.hpp"
#include "ipybox/process/spawn.hpp"
#include "process_helpers.hpp"
#include "test_paths.hpp"

using namespace ipybox;
using ipybox::testing::run_to_end;

namespace {

// The descriptors the child holds, as "0 1 2 ..." (ls itself opens one to read the directory,
// which it closes before printing; find reports the numbers it sees).
std::string child_descriptors(process::spawn_options options = {}) {
    const auto result =
        run_to_end({"/bin/sh", "-c", "cd /proc/self/fd && echo *"}, std::move(options));
    return result.output;
}

}  // namespace

TEST_CASE("a child inherits none of our descriptors, not even those without close-on-exec") {
    // What Asio and ZeroMQ create: sockets and descriptors without O_CLOEXEC.
    const int plain = ::open("/dev/null", O_RDONLY);
    int pair[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
    const int listening = ::socket(AF_UNIX, SOCK_STREAM, 0);
    REQUIRE(plain >= 3);
    const auto seen = child_descriptors();
    // sh's own descriptor for the directory read may appear as the lowest free number: 3.
    CHECK((seen == "0 1 2\n" || seen == "0 1 2 3\n"));
    for (const int fd : {plain, pair[0], pair[1], listening}) ::close(fd);
}

TEST_CASE("a descriptor handed over arrives at the number asked for, and only that one") {
    auto ends = process::make_pipe();
    auto null_in = process::open_dev_null(false);
    auto out = process::make_pipe();
    process::spawn_request request;
    request.executable = "/bin/sh";
    request.arguments = {"-c", "echo handed >&7; cd /proc/self/fd && echo *"};
    request.environment = {{"PATH", "/usr/bin:/bin"}};
    request.working_directory = "/";
    request.descriptors = {
        {0, null_in.get()}, {1, out.write.get()}, {2, out.write.get()}, {7, ends.write.get()}};
    auto child = process::spawn(request);
    ends.write.reset();
    out.write.reset();
    char buffer[256] = {};
    const auto got = ::read(ends.read.get(), buffer, sizeof buffer - 1);
    CHECK(std::string(buffer, got > 0 ? static_cast<std::size_t>(got) : 0) == "handed\n");
    char listing[256] = {};
    const auto listed = ::read(out.read.get(), listing, sizeof listing - 1);
    const std::string fds(listing, listed > 0 ? static_cast<std::size_t>(listed) : 0);
    CHECK((fds == "0 1 2 7\n" || fds == "0 1 2 3 7\n"));
    int status = 0;
    ::waitpid(child.pid, &status, 0);
}

TEST_CASE("the environment is exactly the one given") {
    process::spawn_options options;
    options.environment = {{"PATH", "/usr/bin:/bin"}, {"ONLY_THIS", "yes"}};
    ::setenv("IPYBOX_TEST_PARENT_SECRET", "leak", 1);
    const auto result = run_to_end({"/usr/bin/env"}, std::move(options));
    CHECK(result.output.find("ONLY_THIS=yes") != std::string::npos);
    CHECK(result.output.find("IPYBOX_TEST_PARENT_SECRET") == std::string::npos);
}

TEST_CASE("a child leads its own session and process group") {
    const auto result = run_to_end({"/bin/sh", "-c", "ps -o pid=,pgid=,sid= -p $$"});
    std::istringstream fields(result.output);
    long pid = 0, group = 0, session = 0;
    fields >> pid >> group >> session;
    CHECK(pid > 0);
    CHECK(group == pid);
    CHECK(session == pid);
}

TEST_CASE("a program that cannot be executed is an error naming it, with no child left") {
    process::spawn_options options;
    options.executable = "/nonexistent/program";
    options.working_directory = "/";
    try {
        process::child_process::spawn(std::move(options));
        FAIL("spawned");
    } catch (const process::process_error& e) {
        const std::string text = e.what();
        CHECK(text.find("/nonexistent/program") != std::string::npos);
        CHECK(text.find("cannot execute it") != std::string::npos);
        CHECK(text.find("No such file") != std::string::npos);
    }
}

TEST_CASE("a missing working directory is an error, never a silent fallback") {
    process::spawn_options options;
    options.executable = "/bin/true";
    options.working_directory = "/nonexistent-dir";
    CHECK_THROWS_WITH_AS(process::child_process::spawn(std::move(options)),
                         doctest::Contains("cannot enter its working directory"),
                         process::process_error);
    process::spawn_options unset;
    unset.executable = "/bin/true";
    CHECK_THROWS_WITH_AS(process::child_process::spawn(std::move(unset)),
                         doctest::Contains("no working directory"), process::process_error);
}

TEST_CASE("resource limits reach the child before its program runs") {
    process::spawn_options options;
    options.limits.file_size_bytes = 1024 * 1024;
    options.limits.open_files = 64;
    const auto result = run_to_end({"/bin/sh", "-c", "ulimit -f; ulimit -n"}, std::move(options));
    CHECK(result.output == "2048\n64\n");  // ulimit -f counts 512-byte blocks
}

TEST_CASE("host Pythons run isolated, from /, and never import a planted module from the cwd") {
    const auto planted = ipybox::testing::fresh_directory("planted");
    std::ofstream(planted / "json.py") << "raise SystemExit('planted json.py ran')\n";
    // Control: a plain interpreter started in that directory imports the planted file.
    process::spawn_options control;
    control.working_directory = planted;
    const auto hit = run_to_end({"/usr/bin/python3", "-c", "import json"}, std::move(control));
    CHECK(hit.output.find("planted json.py ran") != std::string::npos);
    // host_python: isolated, from "/", whatever the caller's directory and PYTHONPATH.
    auto options = process::host_python(
        "/usr/bin/python3", {"-c", "import json, os, sys; print(os.getcwd(), sys.flags.isolated)"},
        {{"PATH", "/usr/bin:/bin"}, {"PYTHONPATH", planted.string()}});
    const auto safe = run_to_end({}, options);
    CHECK(safe.output == "/ 1\n");
}

TEST_CASE(
    "a line the child wrote before it ended is delivered even when the owner stops reading "
    "at once") {
    // Found as an interpreter probe's lost answer: the reader was busy with the first line when
    // the child wrote its last and ended, the owner destroyed the child_process (stopping the
    // reader), and the reader left without reading what waited in the pipe.
    std::mutex mutex;
    std::vector<std::string> lines;
    process::spawn_options options;
    options.executable = "/bin/sh";
    options.arguments = {"-c", "echo first; sleep 0.1; echo last"};
    options.working_directory = "/";
    options.environment = {{"PATH", "/usr/bin:/bin"}};
    options.on_output_line = [&](std::string_view line) {
        if (line == "first") std::this_thread::sleep_for(std::chrono::milliseconds(400));
        std::lock_guard lock(mutex);
        lines.emplace_back(line);
    };
    auto child = process::child_process::spawn(std::move(options));
    REQUIRE(child->wait_for(std::chrono::seconds(10)));
    child.reset();  // while the reader still sleeps in the first line's callback
    std::lock_guard lock(mutex);
    CHECK(lines == std::vector<std::string>{"first", "last"});
}
