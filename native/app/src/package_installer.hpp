#pragma once
// install_package: pip-installs a spec into a folder on the kernel's path (PYTHONPATH), which
// needs no root and leaves an externally managed system Python alone. The folder is in the
// workspace, so packages stay across reset() and restarts.
#include <chrono>
#include <filesystem>
#include <map>
#include <string>

namespace ipybox::app {

struct install_outcome {
    bool succeeded = false;
    std::string output;  // pip's stdout and stderr, or why it did not run
};

// Refuses (without running pip) an empty spec and one that starts with '-' (pip options are not
// accepted: --index-url, -r, -e ... would change what pip does). Never throws for pip failures.
//
// pip installs into a fresh private folder outside the workspace (pip follows links); the result
// is then moved to <workspace>/<relative_target> through a descriptor of the workspace
// (site_packages.hpp), so a link the kernel planted there is refused, never written through.
install_outcome install_with_pip(const std::filesystem::path& python, const std::string& spec,
                                 const std::filesystem::path& working_directory,
                                 const std::filesystem::path& workspace,
                                 const std::filesystem::path& relative_target,
                                 const std::map<std::string, std::string>& host_environment,
                                 std::chrono::milliseconds timeout);

}  // namespace ipybox::app
