#pragma once
// Running a child to its end and reading what it printed; a child in a contained tree; polling
// for a condition.
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "ipybox/process/child_process.hpp"
#include "ipybox/process/containment.hpp"

namespace ipybox::testing {

struct finished_child {
    process::exit_status status;
    std::string output;
};

// Runs `argv` (argv[0] a path; empty: the executable and arguments of `options`) with
// `options` filled in where empty; waits up to 20 s.
finished_child run_to_end(const std::vector<std::string>& argv,
                          process::spawn_options options = {});

// `executable` with `arguments`, started from / in `tree` (its cgroup, tag and rlimits, worked
// out now) with a plain PATH.
process::spawn_options in_tree(process::containment& tree, std::string executable,
                               std::vector<std::string> arguments);

// True once `condition` holds, checked every 20 ms for up to `limit`.
bool eventually(const std::function<bool()>& condition,
                std::chrono::milliseconds limit = std::chrono::seconds(10));

}  // namespace ipybox::testing
