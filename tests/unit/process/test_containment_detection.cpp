// Choosing a containment mechanism, against fake cgroup trees (plain directories and files laid
// out as the kernel lays out /sys/fs/cgroup and /proc/self/cgroup).
#include <doctest/doctest.h>

#include <fstream>

#include "ipybox/process/containment.hpp"
#include "test_paths.hpp"

using namespace ipybox::process;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
}

}  // namespace

TEST_CASE("cgroup v2 with memory and pids delegated below our group is used") {
    const auto root = ipybox::testing::fresh_directory("cg-v2");
    write(root / "fs" / "cgroup.controllers", "cpu memory pids\n");
    write(root / "fs" / "user.slice" / "ipybox.scope" / "cgroup.subtree_control", "memory pids\n");
    write(root / "self", "0::/user.slice/ipybox.scope\n");
    const auto m = detect_containment({root / "fs", root / "self"});
    CHECK(m.kind == containment_kind::cgroup_v2);
    CHECK(m.v2_parent == root / "fs" / "user.slice" / "ipybox.scope");
    CHECK(m.why.empty());
    CHECK(m.summary.find("cgroup v2") != std::string::npos);
}

TEST_CASE("cgroup v2 without delegated controllers falls back to rlimits and says why") {
    const auto root = ipybox::testing::fresh_directory("cg-v2-nodeleg");
    write(root / "fs" / "cgroup.controllers", "cpu memory pids\n");
    write(root / "fs" / "session.scope" / "cgroup.subtree_control", "");
    write(root / "self", "0::/session.scope\n");
    const auto m = detect_containment({root / "fs", root / "self"});
    CHECK(m.kind == containment_kind::rlimits);
    CHECK(m.why.find("does not delegate the memory and pids controllers") != std::string::npos);
    CHECK(m.why.find("systemd-run --user --scope -p Delegate=yes") != std::string::npos);
}

TEST_CASE("cgroup v1 with writable memory and pids hierarchies is used") {
    const auto root = ipybox::testing::fresh_directory("cg-v1");
    fs::create_directories(root / "fs" / "memory" / "a");
    fs::create_directories(root / "fs" / "pids" / "b");
    write(root / "self", "9:pids:/b\n4:memory:/a\n0::/\n");
    const auto m = detect_containment({root / "fs", root / "self"});
    CHECK(m.kind == containment_kind::cgroup_v1);
    CHECK(m.v1_memory_parent == root / "fs" / "memory" / "a");
    CHECK(m.v1_pids_parent == root / "fs" / "pids" / "b");
}

TEST_CASE("cgroup v1 without a pids hierarchy falls back to rlimits and says why") {
    const auto root = ipybox::testing::fresh_directory("cg-v1-nopids");
    fs::create_directories(root / "fs" / "memory");
    write(root / "self", "4:memory:/\n");
    const auto m = detect_containment({root / "fs", root / "self"});
    CHECK(m.kind == containment_kind::rlimits);
    CHECK(m.why.find("not both mounted") != std::string::npos);
}

TEST_CASE("without cgroups only rlimits hold the memory and process limits") {
    const auto root = ipybox::testing::fresh_directory("cg-none");
    write(root / "self", "");
    fs::create_directories(root / "fs");
    const auto m = detect_containment({root / "fs", root / "self"});
    CHECK(m.kind == containment_kind::rlimits);
    CHECK(m.summary == "rlimits only (no cgroup)");
}
