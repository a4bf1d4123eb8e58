#include "../doctor_platform.hpp"

#include <iostream>

#include "ipybox/process/containment.hpp"
#include "ipybox/process/executables.hpp"

namespace ipybox::cli {

void report_sandbox_programs(const process::environment_map& environment,
                             std::vector<std::string>& notes) {
    const auto path = environment.find("PATH");
    for (const char* tool : {"bwrap", "socat", "rg"}) {
        const auto found =
            process::find_executable(tool, path != environment.end() ? path->second : "");
        print_row(tool, found ? found->string() : "not found");
        if (!found) {
            notes.push_back(std::string("--sandbox needs ") + tool +
                            ": sudo apt-get install bubblewrap socat ripgrep");
        }
    }
}

void report_containment_mechanism(const std::string& defaults, std::vector<std::string>& notes) {
    const bool v2 = std::filesystem::exists("/sys/fs/cgroup/cgroup.controllers");
    const bool hybrid = !v2 && std::filesystem::exists("/sys/fs/cgroup/unified");
    print_row("cgroups", v2       ? "v2 (unified)"
                         : hybrid ? "v1 (hybrid: v1 controllers, v2 mounted "
                                    "at /sys/fs/cgroup/unified)"
                                  : "v1");
    const auto mechanism = process::detect_containment();
    print_row("in force", mechanism.summary);
    print_row("defaults", defaults);
    if (!mechanism.why.empty()) {
        print_row("why", mechanism.why);
        notes.push_back(
            "without a cgroup, the memory limit is an address-space limit (RLIMIT_AS) and the "
            "process limit is room for that many processes and threads beyond those the user has "
            "when a kernel starts (RLIMIT_NPROC counts all of the user's; not for root); "
            "processes a kernel starts are still ended with it, found by a tag in their "
            "environment");
    }
}

std::string interpreter_origin(const std::filesystem::path& /*interpreter*/) {
    return "";
}

std::string python_package_hint(const std::string& package,
                                const std::filesystem::path& /*interpreter*/) {
    return "sudo apt-get install python3-" + package;
}

}  // namespace ipybox::cli
