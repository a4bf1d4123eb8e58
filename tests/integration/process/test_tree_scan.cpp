// One pass over the process table for several tagged trees (native/process/src/tree_kill.hpp),
// as the memory watchdog makes it every interval: each process goes to its own tree, and a tree
// with more processes than the per-tree bound cannot crowd another out of the count.
#include <doctest/doctest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "process_helpers.hpp"
#include "process_table.hpp"
#include "tree_kill.hpp"

using ipybox::process::detail::environment_value;
using ipybox::process::detail::tagged_members_of;

namespace {

// `size` sleeping processes whose start environment holds IPYBOX_TREE=<tag>, in a process group
// of their own (the first one's); killed and reaped when it goes.
class tagged_tree {
  public:
    tagged_tree(const std::string& tag, int size) : tag_(tag) {
        const std::string variable = "IPYBOX_TREE=" + tag;
        char* envp[] = {const_cast<char*>(variable.c_str()), nullptr};
        char* argv[] = {const_cast<char*>("sleep"), const_cast<char*>("60"), nullptr};
        for (int i = 0; i < size; ++i) {
            posix_spawnattr_t attributes;
            ::posix_spawnattr_init(&attributes);
            ::posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
            ::posix_spawnattr_setpgroup(&attributes, pids_.empty() ? 0 : pids_.front());
            pid_t pid = -1;
            const int failed = ::posix_spawn(&pid, "/bin/sleep", nullptr, &attributes, argv, envp);
            ::posix_spawnattr_destroy(&attributes);
            REQUIRE(failed == 0);
            pids_.push_back(pid);
        }
        // posix_spawn returns once exec has let go of our memory, before the new environment is
        // in place: until then /proc (or sysctl) shows none, and a scan misses the process, as
        // the watchdog's next pass would not. The tests are about sorting processes that run.
        for (const pid_t pid : pids_) {
            REQUIRE(ipybox::testing::eventually([pid] {
                char value[128];
                return environment_value(pid, "IPYBOX_TREE", value, sizeof value);
            }));
        }
    }
    ~tagged_tree() {
        for (const pid_t pid : pids_) ::kill(pid, SIGKILL);
        for (const pid_t pid : pids_) ::waitpid(pid, nullptr, 0);
    }
    tagged_tree(const tagged_tree&) = delete;
    tagged_tree& operator=(const tagged_tree&) = delete;

    const char* tag() const { return tag_.c_str(); }
    bool has(int pid) const {
        for (const pid_t each : pids_) {
            if (each == pid) return true;
        }
        return false;
    }

  private:
    std::string tag_;
    std::vector<pid_t> pids_;
};

std::string unique_tag(const char* name) {
    return std::string("scan-") + name + "-" + std::to_string(::getpid());
}

// The pass's answer as tree index -> the pids given to it, each checked to belong to that tree.
std::map<int, std::vector<int>> scan(const std::vector<const tagged_tree*>& trees, int per_tree) {
    std::vector<const char*> tags;
    for (const auto* tree : trees) tags.push_back(tree->tag());
    const int capacity = per_tree * static_cast<int>(trees.size());
    std::vector<int> pids(capacity);
    std::vector<int> owners(capacity);
    const int count = tagged_members_of(tags.data(), static_cast<int>(tags.size()), per_tree,
                                        pids.data(), owners.data(), capacity);
    std::map<int, std::vector<int>> found;
    for (int i = 0; i < count; ++i) {
        REQUIRE(owners[i] >= 0);
        REQUIRE(owners[i] < static_cast<int>(trees.size()));
        CHECK_MESSAGE(trees[owners[i]]->has(pids[i]), "pid ", pids[i], " given to the wrong tree");
        found[owners[i]].push_back(pids[i]);
    }
    return found;
}

}  // namespace

TEST_CASE("one pass over the process table gives each tagged process to its own tree") {
    const tagged_tree first(unique_tag("first"), 3);
    const tagged_tree second(unique_tag("second"), 2);
    const tagged_tree empty(unique_tag("empty"), 0);
    auto found = scan({&first, &second, &empty}, 16);
    CHECK(found[0].size() == 3);
    CHECK(found[1].size() == 2);
    CHECK(found[2].empty());
}

namespace {

// How many of a crowded tree (6 processes) and a small one (2) one pass counts, with room for
// `per_tree` of each. The crowded tree is spawned first, so a scan in pid order meets all of it
// first.
std::pair<std::size_t, std::size_t> crowded_and_small(int per_tree) {
    const tagged_tree crowded(unique_tag("crowded"), 6);
    const tagged_tree small(unique_tag("small"), 2);
    auto found = scan({&crowded, &small}, per_tree);
    return {found[0].size(), found[1].size()};
}

}  // namespace

TEST_CASE("a tree with more processes than the per-tree bound cannot crowd another out") {
    // Without the bound the crowded tree would fill the whole capacity (2 trees x 2) and the
    // small tree would count 0.
    CHECK(crowded_and_small(2) == std::pair<std::size_t, std::size_t>{2, 2});
}

TEST_CASE("the control: with room for all, the crowded tree is counted whole") {
    CHECK(crowded_and_small(8) == std::pair<std::size_t, std::size_t>{6, 2});
}
