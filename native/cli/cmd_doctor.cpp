#include "cmd_doctor.hpp"

#include <iostream>

#include "doctor_platform.hpp"
#include "doctor_policy.hpp"
#include "host_context.hpp"
#include "ipybox/core/version.hpp"
#include "ipybox/kernel/interpreter.hpp"
#include "ipybox/process/containment.hpp"
#include "ipybox/sandbox/srt_launcher.hpp"
#include "ipybox/workspace/dotenv.hpp"
#include "ipybox/workspace/secret_strength.hpp"
#include "python_install_hints.hpp"

namespace ipybox::cli {

void print_row(const std::string& what, const std::string& value) {
    std::cout << "  " << what << std::string(what.size() < 14 ? 14 - what.size() : 1, ' ') << value
              << "\n";
}

namespace {

// The optional sandbox (--sandbox): srt and the programs it runs.
void report_sandbox(const process::environment_map& environment,
                    const std::filesystem::path& workspace, std::vector<std::string>& notes) {
    std::cout << "\nSandbox (--sandbox, optional):\n";
    try {
        print_row("srt", sandbox::find_srt(std::nullopt, environment, installed_srt()).string());
    } catch (const sandbox::sandbox_unavailable&) {
        print_row("srt", "not found");
        notes.push_back("--sandbox needs srt: " + sandbox::install_hint());
    }
    report_sandbox_programs(environment, notes);
    // Redaction tells a sandboxed kernel which guess was a secret: say which values of the
    // workspace's .env ipybox would not fill in.
    std::string guessable;
    try {
        for (const auto& [name, value] : workspace::load_dotenv(workspace / ".env")) {
            if (workspace::guessable(value)) {
                guessable += (guessable.empty() ? "" : ", ") + name;
            }
        }
    } catch (const std::exception&) {
        // no readable .env here: nothing to say about it
    }
    print_row("secrets", guessable.empty()
                             ? "a ${VAR} value easy to guess is not filled in under --sandbox"
                             : "too easy to guess to fill in under --sandbox: " + guessable);
    if (!guessable.empty()) {
        notes.push_back((workspace / ".env").string() +
                        " holds values a sandboxed kernel could find by guessing (" + guessable +
                        "): use longer random values, or allow each with "
                        "--allow-guessable-secret NAME (README, Secrets)");
    }
}

// Containment of each kernel's process tree: how this platform holds it, which limits apply, and
// what is weaker than the best (doctor_platform.hpp).
void report_containment(std::vector<std::string>& notes) {
    std::cout << "\nContainment (resource limits, process-tree ownership):\n";
    const auto limits = process::default_resource_limits();
    report_containment_mechanism("memory " + process::describe_bytes(*limits.memory_bytes) + ", " +
                                     std::to_string(*limits.processes) +
                                     " processes, files up to " +
                                     process::describe_bytes(*limits.file_size_bytes) + ", " +
                                     std::to_string(*limits.open_files) + " open files",
                                 notes);
}

}  // namespace

void setup_doctor(CLI::App& app, doctor_options& options) {
    auto* doctor = app.add_subcommand(
        "doctor", "Report the Python interpreter and packages ipybox uses, and what is missing");
    doctor->add_option("--python", options.python, "Check this interpreter instead of searching");
    doctor->add_option("--approval-policy", options.approval_policy,
                       "Validate this approval policy and show which registered tools each rule "
                       "covers");
    doctor
        ->add_option("--workspace", options.workspace,
                     "Workspace whose registered MCP servers --approval-policy is checked "
                     "against, and whose .env is checked for values too easy to guess")
        ->capture_default_str();
}

int run_doctor(const doctor_options& options, const process::environment_map& environment) {
    if (options.approval_policy) {
        return check_approval_policy(
            *options.approval_policy,
            std::filesystem::weakly_canonical(std::filesystem::absolute(options.workspace)),
            environment);
    }
    kernel::interpreter_search search;
    if (options.python) search.explicit_path = *options.python;
    if (const auto it = environment.find("IPYBOX_PYTHON");
        it != environment.end() && !it->second.empty()) {
        search.env_override = it->second;
    }
    if (const auto it = environment.find("PATH"); it != environment.end()) {
        search.path_variable = it->second;
    }
    search.environment = process::filter_environment(environment, process::default_allowlist());

    std::cout << "ipybox " << core::version << "\n\nPython interpreters (in search order):\n";
    std::optional<kernel::interpreter_probe> chosen;
    std::string plain_python;  // one that runs but has no ipykernel
    for (const auto& candidate : kernel::interpreter_candidates(search)) {
        auto probe = kernel::probe_interpreter(candidate, search.environment);
        print_row(probe.path.string(), probe.usable ? "usable (Python " + probe.python_version + ")"
                                                    : "rejected: " + screened(probe.problem));
        if (!probe.usable && !probe.python_version.empty() && plain_python.empty()) {
            plain_python = probe.path.string();
        }
        if (probe.usable && !chosen) chosen = std::move(probe);
    }
    const auto runtime = runtime_directory(environment);
    const bool runtime_ok = std::filesystem::exists(runtime / "ipybox_runtime" / "kernel_main.py");

    std::vector<std::string> problems;
    std::cout << "\nKernel:\n";
    if (chosen) {
        print_row("interpreter", chosen->path.string());
        if (const auto origin = interpreter_origin(chosen->path); !origin.empty()) {
            print_row("python from", origin);
        }
        print_row("ipykernel", chosen->ipykernel_version);
        print_row("pydantic",
                  chosen->pydantic_version.empty() ? "MISSING" : chosen->pydantic_version);
        print_row("matplotlib", chosen->matplotlib_version.empty() ? "missing (plots unavailable)"
                                                                   : chosen->matplotlib_version);
        // How new kernels start (reset, restart): forked from a template, or cold with a spare.
        auto obstacle = kernel::kernel_fork_obstacle(*chosen);
        if (const auto it = environment.find("IPYBOX_FORK_KERNELS");
            it != environment.end() && it->second == "0") {
            obstacle = "IPYBOX_FORK_KERNELS=0 turns forking off";
        }
        print_row("kernel start",
                  obstacle.empty()
                      ? "forked from a kernel template (under --sandbox: inside the sandbox)"
                      : "cold, with a spare kernel started ahead: " + obstacle);
        if (chosen->pydantic_version.empty()) {
            problems.push_back("pydantic is needed by generated MCP tool modules: " +
                               python_package_hint("pydantic", chosen->path));
        }
        if (chosen->matplotlib_version.empty()) {
            problems.push_back("matplotlib is optional, for plots: " +
                               python_package_hint("matplotlib", chosen->path));
        }
    } else {
        print_row("interpreter", "NONE FOUND");
        problems.push_back("no interpreter has ipykernel; get one of these ways:");
        for (const auto& hint : python_install_hints_here(plain_python)) {
            problems.push_back("  " + hint);
        }
    }
    print_row("runtime", runtime.string() + (runtime_ok ? "" : " (MISSING)"));
    if (!runtime_ok) {
        problems.push_back(
            "the ipybox_runtime Python package is missing; reinstall ipybox (the .deb, the "
            "release tarball or ./install.sh) or set IPYBOX_RUNTIME_DIR");
    }

    // Saved actions that every project imports (new_gentool/save_gentool(..., scope="user")).
    const auto user_library = library_roots({}, environment);
    print_row("user library", user_library.empty() ? "none (neither XDG_DATA_HOME nor HOME is set)"
                                                   : user_library.front().string());

    std::vector<std::string> notes;  // optional features that are not available
    report_sandbox(environment, options.workspace, notes);
    report_containment(notes);

    std::cout << "\n";
    for (const auto& note : notes) std::cout << "Note: " << note << "\n";
    if (problems.empty()) {
        std::cout << "Everything ipybox needs is here.\n";
        return exit_ok;
    }
    std::cout << "To fix:\n";
    for (const auto& problem : problems) std::cout << "  - " << problem << "\n";
    const bool fatal = !chosen || !runtime_ok;
    return fatal ? exit_start_failed : exit_ok;
}

}  // namespace ipybox::cli
