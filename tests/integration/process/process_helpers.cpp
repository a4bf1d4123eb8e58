#include "process_helpers.hpp"

#include <fstream>
#include <mutex>
#include <thread>

namespace ipybox::testing {

finished_child run_to_end(const std::vector<std::string>& argv, process::spawn_options options) {
    if (!argv.empty()) {
        options.executable = argv.front();
        options.arguments.assign(argv.begin() + 1, argv.end());
    }
    if (options.working_directory.empty()) options.working_directory = "/";
    if (options.environment.empty()) options.environment = {{"PATH", "/usr/bin:/bin"}};
    auto output = std::make_shared<std::string>();
    auto mutex = std::make_shared<std::mutex>();
    options.on_output_line = [output, mutex](std::string_view line) {
        std::lock_guard lock(*mutex);
        output->append(line).append("\n");
    };
    auto child = process::child_process::spawn(std::move(options));
    auto status = child->wait_for(std::chrono::seconds(20));
    if (!status) status = child->terminate(std::chrono::milliseconds(100));
    child->wait_output_end(std::chrono::seconds(2));
    child.reset();
    std::lock_guard lock(*mutex);
    return {*status, *output};
}

process::spawn_options in_tree(process::containment& tree, std::string executable,
                               std::vector<std::string> arguments) {
    process::spawn_options options;
    options.executable = std::move(executable);
    options.arguments = std::move(arguments);
    options.environment = {{"PATH", "/usr/bin:/bin"}};
    for (const auto& [name, value] : tree.environment()) options.environment[name] = value;
    options.working_directory = "/";
    options.cgroup_procs = tree.cgroup_procs();
    options.limits = tree.rlimits();
    return options;
}

bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        if (condition()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return condition();
}

}  // namespace ipybox::testing
