#include "../doctor_platform.hpp"

#include <unistd.h>

#include "ipybox/process/executables.hpp"

namespace ipybox::cli {
namespace {

bool starts_with(const std::string& text, const char* prefix) {
    return text.rfind(prefix, 0) == 0;
}

bool in_virtual_environment(const std::filesystem::path& interpreter) {
    std::error_code error;
    return std::filesystem::is_regular_file(interpreter.parent_path().parent_path() / "pyvenv.cfg",
                                            error);
}

}  // namespace

void report_sandbox_programs(const process::environment_map& environment,
                             std::vector<std::string>& notes) {
    // srt confines the kernel with a Seatbelt profile it writes for each run, applied by the
    // system's sandbox-exec; it scans for files to deny with ripgrep.
    const char* seatbelt = "/usr/bin/sandbox-exec";
    const bool has_seatbelt = ::access(seatbelt, X_OK) == 0;
    print_row("sandbox-exec",
              has_seatbelt ? std::string(seatbelt) + " (srt's Seatbelt profile)" : "not found");
    if (!has_seatbelt) notes.push_back("--sandbox needs /usr/bin/sandbox-exec, part of macOS");
    const auto path = environment.find("PATH");
    const auto rg = process::find_executable("rg", path != environment.end() ? path->second : "");
    print_row("rg", rg ? rg->string() : "not found");
    if (!rg) notes.push_back("--sandbox needs rg: brew install ripgrep");
}

void report_containment_mechanism(const std::string& defaults, std::vector<std::string>& notes) {
    print_row("cgroups", "none on macOS");
    print_row("in force", "rlimits, and a process group per kernel (ended as one)");
    print_row("defaults", defaults);
    notes.push_back(
        "on macOS the memory limit is held by a watchdog on the resident size of each kernel's "
        "processes, checked at intervals (macOS enforces no address-space limit), and the "
        "process limit is room for that many processes beyond those the user has when a kernel "
        "starts (RLIMIT_NPROC counts all of the user's)");
}

std::string interpreter_origin(const std::filesystem::path& interpreter) {
    if (in_virtual_environment(interpreter)) {
        return "a virtual environment (" + interpreter.parent_path().parent_path().string() + ")";
    }
    std::error_code error;
    const auto real = std::filesystem::canonical(interpreter, error).string();
    if (starts_with(real, "/opt/homebrew/") || starts_with(real, "/usr/local/Cellar/")) {
        return "Homebrew";
    }
    if (starts_with(real, "/Library/Frameworks/Python.framework/")) return "python.org's installer";
    if (starts_with(real, "/usr/bin/") || starts_with(real, "/Library/Developer/") ||
        starts_with(real, "/Applications/Xcode")) {
        return "Apple (Xcode's Command Line Tools)";
    }
    return "elsewhere (" + real + ")";
}

std::string python_package_hint(const std::string& package,
                                const std::filesystem::path& interpreter) {
    if (in_virtual_environment(interpreter)) {
        return interpreter.string() + " -m pip install " + package;
    }
    // Homebrew's Python refuses pip outside a virtual environment (PEP 668).
    return "make a virtual environment (python3 -m venv ~/.ipybox-venv; ~/.ipybox-venv/bin/pip "
           "install ipykernel pydantic matplotlib) and run ipybox with "
           "IPYBOX_PYTHON=~/.ipybox-venv/bin/python3";
}

}  // namespace ipybox::cli
