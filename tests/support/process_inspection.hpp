#pragma once
// Looking at processes from the outside: what they hold and who descends from whom. For tests of
// containment. Linux (and the portable build, which runs there) reads /proc
// (linux/process_inspection.cpp); Darwin asks libproc (darwin/process_inspection.cpp).
#include <chrono>
#include <set>
#include <string>
#include <vector>

namespace ipybox::testing {

// What each descriptor of `pid` refers to: "socket:[123]", "pipe:[45]", "/dev/null", ... (on
// Darwin the number is the kernel's handle of the socket or of the pipe's end, the same in every
// process that holds it).
std::multiset<std::string> descriptor_targets(int pid);
// The sockets and pipes (the targets that name one object each) that both `a` and the tree of
// `b` (b and its descendants) hold.
std::set<std::string> shared_sockets_and_pipes(int a, int b);
// `pid` and all its descendants.
std::vector<int> tree_of(int pid);
// Running (a zombie counts as gone).
bool process_alive(int pid);
// Waits up to `limit` for `pid` to be gone.
bool eventually_gone(int pid, std::chrono::milliseconds limit = std::chrono::seconds(10));
// The resident memory of this process, in KiB.
long own_resident_kib();

}  // namespace ipybox::testing
