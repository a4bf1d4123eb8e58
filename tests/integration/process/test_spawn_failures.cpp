// Each step of the child before exec can fail: the spawn is then an error naming the step, with
// no process left (running or unreaped) and no descriptor of ours left open.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <fstream>

#include "ipybox/process/child_process.hpp"
#include "process_inspection.hpp"

using namespace ipybox;

namespace {

process::spawn_options true_program() {
    process::spawn_options options;
    options.executable = "/bin/true";
    options.working_directory = "/";
    options.environment = {{"PATH", "/usr/bin:/bin"}};
    return options;
}

// Spawns with `options` (through spawn_request when `descriptors` are given) and returns the
// error's text; checks that neither a process nor a descriptor was left behind.
std::string failure_of(process::spawn_options options,
                       std::vector<process::descriptor_handover> descriptors = {}) {
    const auto processes_before = testing::tree_of(::getpid());
    const auto descriptors_before = testing::descriptor_targets(::getpid());
    std::string error;
    try {
        if (descriptors.empty()) {
            process::child_process::spawn(std::move(options));
        } else {
            process::spawn_request request;
            request.executable = options.executable;
            request.working_directory = options.working_directory;
            request.descriptors = std::move(descriptors);
            request.interfaces = options.interfaces;
            process::spawn(request);
        }
        FAIL("it started");
    } catch (const process::process_error& e) {
        error = e.what();
    }
    CHECK(testing::tree_of(::getpid()) == processes_before);
    CHECK(testing::descriptor_targets(::getpid()) == descriptors_before);
    return error;
}

}  // namespace

TEST_CASE("a control group the child cannot join fails the spawn at that step") {
    auto options = true_program();
    auto not_writable = process::open_dev_null(false);
    options.cgroup_procs = {not_writable.get()};
    const auto error = failure_of(std::move(options));
    CHECK(error.find("cannot start /bin/true: cannot join its control group") == 0);
    CHECK(error.find("Bad file descriptor") != std::string::npos);
}

TEST_CASE("a limit the child cannot apply fails the spawn at that step") {
    // Above fs.nr_open: refused even to root.
    unsigned long long ceiling = 0;
    std::ifstream("/proc/sys/fs/nr_open") >> ceiling;
    REQUIRE(ceiling > 0);
    auto options = true_program();
    options.limits.open_files = ceiling + 1;
    const auto error = failure_of(std::move(options));
    CHECK(error.find("cannot start /bin/true: cannot apply its resource limits") == 0);
    CHECK(error.find("Operation not permitted") != std::string::npos);
}

TEST_CASE("descriptors that cannot be handed over fail the spawn at that step") {
    auto null_in = process::open_dev_null(false);
    auto null_out = process::open_dev_null(true);
    for (const bool close_range : {true, false}) {
        CAPTURE(close_range);
        auto options = true_program();
        options.interfaces.bulk_close = close_range;
        // In the child: dup2 to no descriptor number at all.
        const auto in_child = failure_of(
            options, {{0, null_in.get()}, {1, null_out.get()}, {2, null_out.get()}, {-1, 0}});
        CHECK(in_child.find("cannot start /bin/true: cannot hand over its descriptors") == 0);
        CHECK(in_child.find("Bad file descriptor") != std::string::npos);
    }
    // Before the fork: a descriptor of ours that is not open.
    const auto in_parent = failure_of(
        true_program(), {{0, null_in.get()}, {1, null_out.get()}, {2, null_out.get()}, {5, 999}});
    CHECK(in_parent.find("cannot start /bin/true: cannot hand over its descriptors") == 0);
    CHECK(in_parent.find("descriptor 999") != std::string::npos);
}

TEST_CASE("a program that cannot be executed fails the spawn at that step, leaving nothing") {
    auto options = true_program();
    options.executable = "/nonexistent/program";
    const auto error = failure_of(std::move(options));
    CHECK(error.find("cannot start /nonexistent/program: cannot execute it") == 0);
    CHECK(error.find("No such file") != std::string::npos);
}
