#include "tree_kill.hpp"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cstring>

#include "process_table.hpp"

namespace ipybox::process::detail {
namespace {

constexpr int max_members = 1024;

// What a scan of the process table collects for one tag, on the stack.
struct tree_scan {
    const char* tag = nullptr;
    int* out = nullptr;
    int capacity = 0;
    int count = 0;
    int groups[max_members];
    int group_count = 0;
};

bool listed(const int* values, int count, int value) {
    for (int i = 0; i < count; ++i) {
        if (values[i] == value) return true;
    }
    return false;
}

void add_member(tree_scan& scan, int pid) {
    if (scan.count < scan.capacity && !listed(scan.out, scan.count, pid)) {
        scan.out[scan.count++] = pid;
    }
}

void visit_tagged(int pid, void* context) {
    auto& scan = *static_cast<tree_scan*>(context);
    char value[128];
    if (!environment_value(pid, "IPYBOX_TREE", value, sizeof value)) return;
    if (std::strcmp(value, scan.tag) != 0) return;
    add_member(scan, pid);
    const int group = static_cast<int>(::getpgid(pid));
    // Never our own group: a tagged process there (none is spawned so) must not take us along.
    if (group > 1 && group != static_cast<int>(::getpgrp()) && scan.group_count < max_members &&
        !listed(scan.groups, scan.group_count, group)) {
        scan.groups[scan.group_count++] = group;
    }
}

void visit_grouped(int pid, void* context) {
    auto& scan = *static_cast<tree_scan*>(context);
    const int group = static_cast<int>(::getpgid(pid));
    if (group > 1 && listed(scan.groups, scan.group_count, group)) add_member(scan, pid);
}

}  // namespace

void pause_between_rounds() {
    timespec wait{0, 10 * 1000 * 1000};
    ::nanosleep(&wait, nullptr);
}

int tagged_members(const char* tag, int* out, int capacity) {
    tree_scan scan;
    scan.tag = tag;
    scan.out = out;
    scan.capacity = capacity;
    for_each_process(visit_tagged, &scan);
    // A group is the tree's only while a tagged process is in it: its id cannot be another's.
    if (scan.group_count > 0) for_each_process(visit_grouped, &scan);
    return scan.count;
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
