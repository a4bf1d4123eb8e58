#include "tree_kill.hpp"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cstring>

#include "process_table.hpp"

namespace ipybox::process::detail {
namespace {

constexpr int max_members = 1024;

// What a scan of the process table collects for its tags, on the stack.
struct tree_scan {
    const char* const* tags = nullptr;
    int tag_count = 0;
    int per_tree = 0;
    int* out = nullptr;
    int* owner = nullptr;
    int capacity = 0;
    int count = 0;
    int counts[max_scan_trees] = {};  // members found per tag
    int groups[max_members];
    int group_owner[max_members];
    int group_count = 0;
};

int index_of(const int* values, int count, int value) {
    for (int i = 0; i < count; ++i) {
        if (values[i] == value) return i;
    }
    return -1;
}

void add_member(tree_scan& scan, int pid, int tree) {
    if (scan.count < scan.capacity && scan.counts[tree] < scan.per_tree &&
        index_of(scan.out, scan.count, pid) < 0) {
        scan.out[scan.count] = pid;
        scan.owner[scan.count++] = tree;
        ++scan.counts[tree];
    }
}

void visit_tagged(int pid, void* context) {
    auto& scan = *static_cast<tree_scan*>(context);
    char value[128];
    if (!environment_value(pid, "IPYBOX_TREE", value, sizeof value)) return;
    int tree = 0;
    while (tree < scan.tag_count && std::strcmp(value, scan.tags[tree]) != 0) ++tree;
    if (tree == scan.tag_count) return;
    add_member(scan, pid, tree);
    const int group = static_cast<int>(::getpgid(pid));
    // Never our own group: a tagged process there (none is spawned so) must not take us along.
    if (group > 1 && group != static_cast<int>(::getpgrp()) && scan.group_count < max_members &&
        index_of(scan.groups, scan.group_count, group) < 0) {
        scan.group_owner[scan.group_count] = tree;
        scan.groups[scan.group_count++] = group;
    }
}

void visit_grouped(int pid, void* context) {
    auto& scan = *static_cast<tree_scan*>(context);
    const int group = static_cast<int>(::getpgid(pid));
    const int found = group > 1 ? index_of(scan.groups, scan.group_count, group) : -1;
    if (found >= 0) add_member(scan, pid, scan.group_owner[found]);
}

}  // namespace

void pause_between_rounds() {
    timespec wait{0, 10 * 1000 * 1000};
    ::nanosleep(&wait, nullptr);
}

int tagged_members_of(const char* const* tags, int tag_count, int per_tree, int* out, int* owner,
                      int capacity) {
    tree_scan scan;
    scan.tags = tags;
    scan.tag_count = tag_count < max_scan_trees ? tag_count : max_scan_trees;
    scan.per_tree = per_tree;
    scan.out = out;
    scan.owner = owner;
    scan.capacity = capacity;
    for_each_process(visit_tagged, &scan);
    // A group is the tree's only while a tagged process is in it: its id cannot be another's.
    if (scan.group_count > 0) for_each_process(visit_grouped, &scan);
    return scan.count;
}

int tagged_members(const char* tag, int* out, int capacity) {
    int owners[max_members];
    const int bounded = capacity < max_members ? capacity : max_members;
    return tagged_members_of(&tag, 1, bounded, out, owners, bounded);
}

void signal_tagged(const char* tag, int signal) {
    int pids[max_members];
    const int count = tagged_members(tag, pids, max_members);
    for (int i = 0; i < count; ++i) ::kill(pids[i], signal);
}

int end_tagged(const char* tag) {
    int signalled = 0;
    int pids[max_members];
    for (int round = 0; round < kill_rounds; ++round) {
        const int count = tagged_members(tag, pids, max_members);
        if (count == 0) break;
        for (int i = 0; i < count; ++i) {
            if (::kill(pids[i], SIGKILL) == 0) ++signalled;
        }
        pause_between_rounds();
    }
    return signalled;
}

}  // namespace ipybox::process::detail
