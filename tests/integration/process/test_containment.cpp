// Containment of a real process tree: nothing a contained child starts outlives the tree, even
// a grandchild in its own session that ignores SIGTERM, even when the owner is SIGKILLed; limits
// hold with the mechanism this machine allows (cgroup v1/v2 as root or delegated, else rlimits).
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "ipybox/process/containment.hpp"
#include "process_helpers.hpp"
#include "process_inspection.hpp"
#include "test_paths.hpp"

using namespace ipybox;
using ipybox::testing::eventually;
using ipybox::testing::in_tree;
using ipybox::testing::process_alive;

namespace {

// A shell that starts, in a new session, a grandchild that ignores SIGTERM and writes its pid to
// `pid_file`, then waits forever itself.
process::spawn_options escaping_tree(const std::filesystem::path& pid_file,
                                     process::containment& tree) {
    return in_tree(tree, "/bin/sh",
                   {"-c", "setsid sh -c 'trap \"\" TERM; echo $$ > " + pid_file.string() +
                              "; exec sleep 300' & wait"});
}

// /usr/bin/python3 running `code` in `tree`.
process::spawn_options python_in(process::containment& tree, const std::string& code) {
    return in_tree(tree, "/usr/bin/python3", {"-c", code});
}

// Allocates 600 MiB, touches every page and holds it: a watchdog that looks now and then sees it
// however fast the allocation was.
constexpr const char* memory_hog =
    "x = bytearray(600 * 1024 * 1024); x[::4096] = b'y' * len(x[::4096]); "
    "import time; time.sleep(60)";

// The hog's end: MemoryError under RLIMIT_AS, else a cgroup's OOM kill or the watchdog's SIGKILL
// with the breach reported.
void check_stopped_for_memory(const process::containment_host& host, process::containment& tree,
                              const process::exit_status& status) {
    if (host.mechanism().kind == process::containment_kind::rlimits &&
        !host.mechanism().memory_watchdog) {
        CHECK(status.code == 1);
        return;
    }
    CHECK(status.signal == SIGKILL);
    const auto breach = tree.take_breach();
    REQUIRE(breach);
    CHECK(breach->limit == "memory");
    CHECK(breach->detail == "its memory limit of 128 MiB");
}

int read_pid(const std::filesystem::path& file) {
    int pid = 0;
    eventually([&] {
        std::ifstream in(file);
        return static_cast<bool>(in >> pid) && pid > 0;
    });
    return pid;
}

}  // namespace

TEST_CASE("a grandchild in its own session that ignores SIGTERM ends with its tree") {
    process::containment_host host;
    MESSAGE("containment here: " << host.mechanism().summary << " " << host.mechanism().why);
    auto tree = host.contain({});
    const auto pid_file = ipybox::testing::fresh_directory("tree") / "grandchild";
    auto child = process::child_process::spawn(escaping_tree(pid_file, *tree));
    const int grandchild = read_pid(pid_file);
    REQUIRE(grandchild > 0);
    // Control: the usual shutdown (the child's process group) does not reach it.
    child->terminate(std::chrono::milliseconds(200));
    CHECK(process_alive(grandchild));
    CHECK(tree->members().size() >= 1);
    tree->kill_all();
    CHECK(eventually([&] { return !process_alive(grandchild); }));
    CHECK(tree->members().empty());
}

TEST_CASE("when the owner of a tree is killed with SIGKILL, the keeper ends the tree") {
    const auto pid_file = ipybox::testing::fresh_directory("keeper") / "grandchild";
    int report[2];
    REQUIRE(::pipe(report) == 0);
    const pid_t owner = ::fork();
    REQUIRE(owner >= 0);
    if (owner == 0) {  // the owner: contains a tree, then waits to be killed
        ::close(report[0]);
        try {
            static process::containment_host host;
            static auto tree = host.contain({});
            static auto child = process::child_process::spawn(escaping_tree(pid_file, *tree));
            [[maybe_unused]] auto ignored = ::write(report[1], "x", 1);
            ::pause();
        } catch (...) {
        }
        ::_exit(1);
    }
    ::close(report[1]);
    char ready = 0;
    REQUIRE(::read(report[0], &ready, 1) == 1);
    ::close(report[0]);
    const int grandchild = read_pid(pid_file);
    REQUIRE(grandchild > 0);
    REQUIRE(process_alive(grandchild));
    ::kill(owner, SIGKILL);
    int status = 0;
    ::waitpid(owner, &status, 0);
    CHECK(eventually([&] { return !process_alive(grandchild); }));
}

TEST_CASE("the memory limit stops a tree that exceeds it, and the breach is reported") {
    process::containment_host host;
    process::resource_limits limits;
    limits.memory_bytes = 128ULL << 20;
    auto tree = host.contain(limits);
    auto child = process::child_process::spawn(python_in(*tree, memory_hog));
    const auto status = child->wait_for(std::chrono::seconds(30));
    REQUIRE(status);
    check_stopped_for_memory(host, *tree, *status);
}

TEST_CASE("of two trees with a memory limit, only the one above it is stopped") {
    process::containment_host host;
    process::resource_limits limits;
    limits.memory_bytes = 128ULL << 20;
    auto quiet = host.contain(limits);
    auto hungry = host.contain(limits);
    auto sleeper = process::child_process::spawn(python_in(*quiet, "import time; time.sleep(60)"));
    auto hog = process::child_process::spawn(python_in(*hungry, memory_hog));
    const auto status = hog->wait_for(std::chrono::seconds(30));
    REQUIRE(status);
    check_stopped_for_memory(host, *hungry, *status);
    // The other tree's process, well below its limit, still runs, and no breach is told of it.
    CHECK_FALSE(sleeper->wait_for(std::chrono::milliseconds(500)));
    CHECK_FALSE(quiet->take_breach());
    quiet->kill_all();
}

TEST_CASE(
    "memory is counted per tree: two trees each under their limit, above it together, run on") {
    // Each holds 100 MiB under a limit of 192 MiB: a count that put one tree's processes in the
    // other's (one pass over the process table serves every tree, memory_watchdog) stops one.
    process::containment_host host;
    process::resource_limits limits;
    limits.memory_bytes = 192ULL << 20;
    const auto dir = ipybox::testing::fresh_directory("per-tree");
    std::vector<std::unique_ptr<process::containment>> trees;
    std::vector<std::unique_ptr<process::child_process>> holders;
    for (const char* name : {"a", "b"}) {
        trees.push_back(host.contain(limits));
        holders.push_back(process::child_process::spawn(python_in(
            *trees.back(), "x = bytearray(100 << 20); x[::4096] = b'y' * len(x[::4096]); open(" +
                               nlohmann::json((dir / name).string()).dump() +
                               ", 'w').close(); import time; time.sleep(60)")));
    }
    REQUIRE(eventually(
        [&] { return std::filesystem::exists(dir / "a") && std::filesystem::exists(dir / "b"); }));
    // Ten looks of the watchdog (100 ms apart) after both hold their memory.
    for (auto& holder : holders) CHECK_FALSE(holder->wait_for(std::chrono::seconds(1)));
    for (auto& tree : trees) {
        CHECK_FALSE(tree->take_breach());
        tree->kill_all();
    }
}

TEST_CASE("without a cgroup, a process that cleared its environment is found by its group") {
    // A layout with no cgroup at all: the tree is found by its tag and its process groups.
    const auto root = ipybox::testing::fresh_directory("no-cgroup");
    std::filesystem::create_directories(root / "fs");
    std::ofstream(root / "self") << "";
    process::containment_host host({root / "fs", root / "self"});
    REQUIRE(host.mechanism().kind == process::containment_kind::rlimits);
    auto tree = host.contain({});
    const auto files = ipybox::testing::fresh_directory("cleared");
    process::spawn_options options = escaping_tree(files / "unused", *tree);
    // One child keeps the group and clears its environment; the other also leaves the group.
    // Each writes its pid only once it runs so (a shell started by env -i, then exec'd to sleep).
    const auto started_so = [&](const std::string& file) {
        return "env -i /bin/sh -c 'echo $$ > " + (files / file).string() + "; exec /bin/sleep 300'";
    };
    options.arguments = {"-c",
                         started_so("grouped") + " & setsid " + started_so("away") + " & wait"};
    auto child = process::child_process::spawn(options);
    const int grouped = read_pid(files / "grouped");
    const int away = read_pid(files / "away");
    const auto members = tree->members();
    CHECK(std::find(members.begin(), members.end(), grouped) != members.end());
    // The control, and the limit of this way of finding a tree (containment.hpp says so).
    CHECK(std::find(members.begin(), members.end(), away) == members.end());
    tree->kill_all();
    CHECK(eventually([&] { return !process_alive(grouped); }));
    CHECK(process_alive(away));
    ::kill(away, SIGKILL);
}

TEST_CASE("the process limit refuses forks beyond it (cgroup), and the breach is reported") {
    process::containment_host host;
    if (host.mechanism().kind == process::containment_kind::rlimits) {
        MESSAGE("rlimits only here: test_user_process_limit.cpp checks that limit");
        return;
    }
    process::resource_limits limits;
    limits.processes = 16;
    auto tree = host.contain(limits);
    process::spawn_options options;
    options.executable = "/bin/sh";
    options.arguments = {"-c", "for i in $(seq 40); do sleep 3 & done 2>/dev/null; echo started"};
    options.environment = {{"PATH", "/usr/bin:/bin"}};
    options.working_directory = "/";
    options.cgroup_procs = tree->cgroup_procs();
    auto child = process::child_process::spawn(std::move(options));
    child->wait_for(std::chrono::seconds(20));
    CHECK(tree->members().size() <= 16);
    const auto breach = tree->take_breach();
    REQUIRE(breach);
    CHECK(breach->limit == "processes");
    tree->kill_all();
}
