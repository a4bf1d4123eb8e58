// Measures the memory watchdog's look at the process table (native/process/src/tree_kill.hpp):
// one pass that sorts every tagged process into its tree (tagged_members_of, what the watchdog
// does every 100 ms since session 18), against a pass per tree (tagged_members once per tag, as
// it did before). Prints a Markdown table to stdout; nothing is asserted.
//
//   ipybox_tree_scan_bench [--per-tree N] [--runs N]
//
// Trees of `per-tree` sleeping processes (default 4) are started for 64 tags; each row watches
// the first 1, 8, 32 or 64 of them. On Linux a look reads /proc/<pid>/environ of every process
// of the user, so the cost grows with the processes on the machine, which the table names.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "process_table.hpp"
#include "tree_kill.hpp"

namespace {

using clock_type = std::chrono::steady_clock;
using ipybox::process::detail::for_each_process;
using ipybox::process::detail::max_scan_trees;
using ipybox::process::detail::tagged_members;
using ipybox::process::detail::tagged_members_of;

// A sleeping process whose start environment carries IPYBOX_TREE=<tag>; -1 when it failed.
pid_t spawn_tagged(const std::string& tag) {
    const std::string variable = "IPYBOX_TREE=" + tag;
    char* envp[] = {const_cast<char*>(variable.c_str()), nullptr};
    char* argv[] = {const_cast<char*>("sleep"), const_cast<char*>("600"), nullptr};
    posix_spawnattr_t attributes;
    ::posix_spawnattr_init(&attributes);
    ::posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);  // a group of its own
    ::posix_spawnattr_setpgroup(&attributes, 0);
    pid_t pid = -1;
    const int failed = ::posix_spawn(&pid, "/bin/sleep", nullptr, &attributes, argv, envp);
    ::posix_spawnattr_destroy(&attributes);
    return failed == 0 ? pid : -1;
}

double median_us(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values.empty() ? 0 : values[values.size() / 2];
}

template <class Look>
double time_us(int runs, Look look) {
    std::vector<double> samples;
    for (int run = 0; run < runs; ++run) {
        const auto start = clock_type::now();
        look();
        samples.push_back(
            std::chrono::duration<double, std::micro>(clock_type::now() - start).count());
    }
    return median_us(std::move(samples));
}

int processes_listed() {
    int count = 0;
    for_each_process([](int, void* context) { ++*static_cast<int*>(context); }, &count);
    return count + 1;  // and this one
}

}  // namespace

int main(int argc, char** argv) {
    int per_tree = 4;
    int runs = 30;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--per-tree") == 0) per_tree = std::stoi(argv[i + 1]);
        if (std::strcmp(argv[i], "--runs") == 0) runs = std::stoi(argv[i + 1]);
    }
    std::vector<std::string> tags;
    std::vector<pid_t> sleepers;
    for (int tree = 0; tree < max_scan_trees; ++tree) {
        tags.push_back("bench-" + std::to_string(::getpid()) + "-" + std::to_string(tree));
        for (int i = 0; i < per_tree; ++i) sleepers.push_back(spawn_tagged(tags.back()));
    }
    bool all_started =
        std::none_of(sleepers.begin(), sleepers.end(), [](pid_t pid) { return pid < 0; });

    std::vector<const char*> names;
    for (const auto& tag : tags) names.push_back(tag.c_str());
    std::vector<int> pids(static_cast<std::size_t>(1024) * max_scan_trees);
    std::vector<int> owners(pids.size());
    // posix_spawn returns before exec has put the new environment in place: wait (at most 5 s)
    // until one pass finds every sleeper, so that each row counts the same processes.
    const auto all_found = [&] {
        return tagged_members_of(names.data(), max_scan_trees, 1024, pids.data(), owners.data(),
                                 static_cast<int>(pids.size())) == max_scan_trees * per_tree;
    };
    const auto deadline = clock_type::now() + std::chrono::seconds(5);
    while (!all_found() && clock_type::now() < deadline) ::usleep(10000);
    all_started = all_started && all_found();
    std::printf(
        "\nMemory watchdog: one look at the process table for N trees (%d processes "
        "listed, %d per tree, median of %d)\n\n",
        processes_listed(), per_tree, runs);
    std::printf("| trees | one pass (µs) | a pass per tree (µs) | ratio | found |\n");
    std::printf("|---:|---:|---:|---:|---:|\n");
    for (const int trees : {1, 8, 32, 64}) {
        int found = 0;
        const double one = time_us(runs, [&] {
            found = tagged_members_of(names.data(), trees, 1024, pids.data(), owners.data(),
                                      static_cast<int>(pids.size()));
        });
        const double each = time_us(runs, [&] {
            for (int tree = 0; tree < trees; ++tree) tagged_members(names[tree], pids.data(), 1024);
        });
        std::printf("| %d | %.0f | %.0f | %.2fx | %d |\n", trees, one, each, one / each, found);
    }
    for (const pid_t pid : sleepers) {
        if (pid > 0) ::kill(pid, SIGKILL);
    }
    for (const pid_t pid : sleepers) {
        if (pid > 0) ::waitpid(pid, nullptr, 0);
    }
    return all_started ? 0 : 1;
}
