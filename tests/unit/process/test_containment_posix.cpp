// Containment where the platform has no control groups (Darwin, and the portable build that runs
// Darwin's logic on Linux): rlimits, with memory held by the watchdog instead of RLIMIT_AS.
#include <doctest/doctest.h>
#include <unistd.h>

#include <fstream>

#include "ipybox/process/containment.hpp"
#include "test_paths.hpp"

using namespace ipybox::process;
namespace fs = std::filesystem;

TEST_CASE("without control groups, rlimits and the memory watchdog are used, whatever is mounted") {
    // A layout where Linux would find a delegated cgroup v2: none is used here.
    const auto root = ipybox::testing::fresh_directory("cg-posix");
    fs::create_directories(root / "fs" / "scope");
    std::ofstream(root / "fs" / "cgroup.controllers") << "memory pids\n";
    std::ofstream(root / "fs" / "scope" / "cgroup.subtree_control") << "memory pids\n";
    std::ofstream(root / "self") << "0::/scope\n";
    const auto m = detect_containment({root / "fs", root / "self"});
    CHECK(m.kind == containment_kind::rlimits);
    CHECK(m.memory_watchdog);
    CHECK(m.why == "this platform has no control groups");
}

TEST_CASE("without control groups, a tree's rlimits carry no address-space limit") {
    containment_host host;
    resource_limits limits;
    limits.memory_bytes = 256ULL << 20;
    limits.processes = 64;
    limits.open_files = 100;
    auto tree = host.contain(limits);
    const auto rlimits = tree->rlimits();
    CHECK(!rlimits.address_space_bytes);
    // Room for 64 beyond the user's processes, this one among them (containment.hpp).
    REQUIRE(rlimits.processes);
    CHECK(*rlimits.processes > 64U);
    CHECK(rlimits.open_files == 100U);
    CHECK(tree->cgroup_procs().empty());
}
