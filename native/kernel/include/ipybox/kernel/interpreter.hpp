#pragma once
// Finding a Python interpreter that can run an IPython kernel (ARCHITECTURE.md, "Python
// interpreter"): an explicit path, else IPYBOX_PYTHON, else the interpreter of the virtual
// environment ipybox is installed in (the wheel's case), else the first candidate that can import
// ipykernel. Callers pass configuration in; nothing here reads the environment variables itself.
#include <chrono>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ipybox/process/environment.hpp"

namespace ipybox::kernel {

struct interpreter_probe {
    std::filesystem::path path;
    bool usable = false;         // exists, runs, and has ipykernel
    std::string problem;         // why not usable, for messages
    std::string python_version;  // "3.11.2", empty if it did not run
    std::string ipykernel_version;
    std::string pydantic_version;
    std::string matplotlib_version;
    bool can_fork = false;  // os.fork and descriptor passing (SCM_RIGHTS) are there
};

// Why kernels of `probe`'s interpreter cannot be forked from a kernel template on this system
// (kernel_session.hpp: session_options::fork_kernels), or "" when they can: the interpreter
// needs os.fork and descriptor passing, the system pidfds (to watch a process that is not our
// child).
std::string kernel_fork_obstacle(const interpreter_probe& probe);

// Runs `path` once to learn its versions. Never throws; failures are described in `problem`.
// `environment` is the probe's complete environment (normally the kernel's allowlist).
interpreter_probe probe_interpreter(const std::filesystem::path& path,
                                    const process::environment_map& environment,
                                    std::chrono::milliseconds timeout = std::chrono::seconds(20));

// The interpreter of the virtual environment `executable` is installed in: <dir>/python3 (else
// <dir>/python) when <dir>/../pyvenv.cfg marks a virtual environment, as pip and uv make them
// (uvx's cached environments too). Returned as found, not resolved: a venv's python3 is a link to
// its base interpreter, which would run without the venv's packages. nullopt outside a venv.
std::optional<std::filesystem::path> environment_interpreter(
    const std::filesystem::path& executable);

// environment_interpreter of the running program (core::own_executable).
std::optional<std::filesystem::path> own_environment_interpreter();

struct interpreter_search {
    std::optional<std::filesystem::path> explicit_path;  // --python
    std::optional<std::filesystem::path> env_override;   // IPYBOX_PYTHON
    // The interpreter of the environment ipybox is installed in. When set it is the only default
    // candidate: a wheel installed in a venv (bin/ipybox run by absolute path, or by uvx) runs
    // its kernel there and never on another Python of PATH or /usr/bin that lacks its packages.
    std::optional<std::filesystem::path> environment_python = own_environment_interpreter();
    std::string path_variable;             // the PATH to search for python3
    process::environment_map environment;  // environment the probes run with
    // Folders whose interpreters are never run, not even to probe them: under --sandbox the
    // workspace, where the kernel could have planted a "python3" (an activated .venv puts one
    // on PATH). Relative PATH entries are skipped always.
    std::vector<std::filesystem::path> untrusted_roots;
};

struct interpreter_choice {
    interpreter_probe chosen;
    std::vector<interpreter_probe> rejected;  // candidates tried before `chosen`
};

class interpreter_not_found : public std::runtime_error {
  public:
    interpreter_not_found(const std::string& message, std::vector<interpreter_probe> tried)
        : std::runtime_error(message), tried_(std::move(tried)) {}
    const std::vector<interpreter_probe>& tried() const { return tried_; }

  private:
    std::vector<interpreter_probe> tried_;
};

// The candidates in order, without probing them.
std::vector<std::filesystem::path> interpreter_candidates(const interpreter_search& search);

// Probes candidates in order and returns the first usable one. Throws interpreter_not_found
// naming every candidate, why it was rejected, and how to fix it.
interpreter_choice find_interpreter(const interpreter_search& search);

}  // namespace ipybox::kernel
