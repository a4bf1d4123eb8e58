// Measures ipybox's kernel client against the real ipykernel and prints one JSON object:
// start-to-ready, `pass` and `print(1)` round trips (with the kernel's own share, from its
// message timestamps), reset-to-usable, and this process's peak RSS.
//
//   ipybox_kernel_bench [--runs N] [--python PATH] [--srt PATH]
//
// The same measurements are repeated with kernels started cold instead of forked from the kernel
// template (under "cold"), with every resource limit off (under "no_limits") and, with --srt,
// with the kernel sandboxed (under "sandboxed", and started cold under "sandboxed_cold"). Each also
// measures resets back to back, the next result after a kernel's crash (os._exit) and the PSS of
// the process tree.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ipybox/code_executor.hpp"
#include "ipybox/process/environment.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point start) {
    return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

double percentile(std::vector<double> values, double p) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const auto index = static_cast<std::size_t>(p / 100.0 * static_cast<double>(values.size() - 1));
    return values[index];
}

nlohmann::json round_trips(ipybox::code_executor& executor, const std::string& code, int runs) {
    std::vector<double> total;
    std::vector<double> kernel;
    for (int i = 0; i < 20; ++i) executor.execute(code);  // warm-up
    for (int i = 0; i < runs; ++i) {
        const auto start = clock_type::now();
        const auto result = executor.execute(code);
        total.push_back(ms_since(start));
        if (result.kernel_micros)
            kernel.push_back(static_cast<double>(*result.kernel_micros) / 1000);
    }
    return {{"p50_ms", percentile(total, 50)},
            {"p99_ms", percentile(total, 99)},
            {"kernel_p50_ms", percentile(kernel, 50)},
            {"runs", runs}};
}

// The proportional set size (shared pages divided among their sharers) of this process and all
// its descendants, in MiB: forked kernels share the template's pages, which RSS would count
// once per process.
double tree_pss_mib() {
    std::map<int, std::vector<int>> children;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const auto name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream stat(entry.path() / "stat");
        std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
        const auto end = text.rfind(')');
        if (end == std::string::npos) continue;
        std::istringstream fields(text.substr(end + 2));
        std::string state;
        int parent = 0;
        fields >> state >> parent;
        children[parent].push_back(std::stoi(name));
    }
    double kib = 0;
    std::vector<int> pending = {getpid()};
    while (!pending.empty()) {
        const int pid = pending.back();
        pending.pop_back();
        for (const int child : children[pid]) pending.push_back(child);
        std::ifstream rollup("/proc/" + std::to_string(pid) + "/smaps_rollup");
        for (std::string line; std::getline(rollup, line);) {
            if (line.rfind("Pss:", 0) == 0) kib += std::stod(line.substr(4));
        }
    }
    return kib / 1024;
}

// Start, round trips and reset of one executor.
nlohmann::json measure(ipybox::code_executor_options options, int runs) {
    nlohmann::json report;
    ipybox::code_executor executor(std::move(options));
    auto start = clock_type::now();
    executor.start();
    report["start_to_ready_ms"] = ms_since(start);
    report["containment"] = executor.containment_summary();
    report["pass"] = round_trips(executor, "pass", runs);
    report["print"] = round_trips(executor, "print(1)", runs);

    std::vector<double> resets;
    for (int i = 0; i < 5; ++i) {
        executor.execute("pass");
        // Give the spare time to come up, as it would between an agent's turns.
        std::this_thread::sleep_for(std::chrono::milliseconds(2500));
        start = clock_type::now();
        executor.reset();
        executor.execute("pass");
        resets.push_back(ms_since(start));
    }
    report["reset_to_usable_ms"] = percentile(resets, 50);
    report["tree_pss_mib"] = tree_pss_mib();  // the spare is up (see above)
    // Once the kernel in use has imported what a data cell imports.
    executor.execute("import numpy, pydantic, matplotlib.pyplot");
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    report["tree_pss_after_imports_mib"] = tree_pss_mib();

    // Resets as an agent's loop makes them: nothing between them but a cell.
    std::vector<double> back_to_back;
    for (int i = 0; i < 12; ++i) {
        start = clock_type::now();
        executor.reset();
        executor.execute("pass");
        back_to_back.push_back(ms_since(start));
    }
    report["reset_back_to_back_p50_ms"] = percentile(back_to_back, 50);
    report["reset_back_to_back_p90_ms"] = percentile(back_to_back, 90);

    // From a cell that ends its kernel (os._exit) to the next cell's result.
    std::vector<double> crashes;
    for (int i = 0; i < 5; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2500));
        try {
            executor.execute("import os; os._exit(1)");
        } catch (const std::exception&) {  // the death, as expected
        }
        start = clock_type::now();
        executor.execute("pass");
        crashes.push_back(ms_since(start));
    }
    report["crash_restart_ms"] = percentile(crashes, 50);
    executor.stop();
    return report;
}

}  // namespace

int main(int argc, char** argv) {
    int runs = 500;
    std::string python = "/usr/bin/python3";
    std::string srt;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--runs") == 0) runs = std::stoi(argv[i + 1]);
        if (std::strcmp(argv[i], "--python") == 0) python = argv[i + 1];
        if (std::strcmp(argv[i], "--srt") == 0) srt = argv[i + 1];
    }
    const auto workspace = std::filesystem::temp_directory_path() / "ipybox-bench";
    std::filesystem::create_directories(workspace);

    ipybox::code_executor_options options;
    options.workspace = workspace;
    options.python = python;
    options.host_environment = ipybox::process::current_environment();
    options.runtime_directory = IPYBOX_SOURCE_PYTHON_DIR;
    options.keep_spare_kernel = true;

    // Kernels started cold first (the spare as before the template), then forked.
    auto cold = options;
    cold.fork_kernels = false;
    const auto cold_report = measure(cold, runs);
    auto report = measure(options, runs);
    report["cold"] = cold_report;
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    report["peak_rss_mib"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
    // The same with every resource limit off (the tree is still contained), for their cost.
    auto unlimited = options;
    unlimited.limits = {};
    report["no_limits"] = measure(unlimited, runs);
    if (!srt.empty()) {
        options.sandbox = ipybox::kernel_sandbox{};
        options.sandbox->srt = srt;
        report["sandboxed"] = measure(options, runs);  // forked inside the sandbox
        options.fork_kernels = false;
        report["sandboxed_cold"] = measure(options, runs);
    }
    std::cout << report.dump() << std::endl;
    return 0;
}
