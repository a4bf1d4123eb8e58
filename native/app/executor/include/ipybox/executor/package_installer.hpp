#pragma once
// install_package: pip-installs a spec into a folder on the kernel's path (PYTHONPATH), which
// needs no root and leaves an externally managed system Python alone. The folder is in the
// workspace, so packages stay across reset() and restarts. For actions saved in the user
// library there is one per-user folder too, on the path of every project's kernel after the
// project's own.
#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ipybox::app {

struct install_outcome {
    bool succeeded = false;
    std::string output;  // pip's stdout and stderr, or why it did not run
};

struct install_request {
    std::filesystem::path python;     // the kernel's interpreter; pip runs isolated (host_python)
    std::string spec;                 // a name, name==version, a path or a VCS/URL requirement
    std::filesystem::path workspace;  // what a relative path spec is relative to
    // The folder on the kernel's path, relative to `target_root` (.ipybox/site-packages).
    std::filesystem::path relative_target;
    // The folder relative_target lies in: the workspace when empty; the user site's parent for
    // scope "user" (user_site_packages).
    std::filesystem::path target_root;
    std::map<std::string, std::string> host_environment;
    std::chrono::milliseconds timeout{300000};
    // Under --sandbox the workspace is written by code nobody has read: building a package from
    // it would run that code on the host (setup.py, a build backend). Local paths and file: URLs
    // are then refused with the way to do it inside the sandbox instead (%pip in a cell).
    bool refuse_local_paths = false;
};

// The longest package_name taken (a requirement with extras, markers or a URL fits easily).
inline constexpr std::size_t max_spec_bytes = 4096;

// Refuses (without running pip) an empty spec, one that starts with '-' (pip options are not
// accepted: --index-url, -r, -e ... would change what pip does), one of several lines, one over
// max_spec_bytes, and local paths when asked to. Never throws for pip failures.
//
// pip installs into a fresh private folder outside the workspace (pip follows links); the result
// is then moved to <target_root>/<relative_target> through a descriptor of target_root
// (site_packages.hpp), so a link the kernel planted there is refused, never written through.
install_outcome install_with_pip(const install_request& request);

// The per-user site folder (install_package with scope "user"): `site-packages` beside the
// user's library, the first library root (~/.local/share/ipybox/gentools gives
// ~/.local/share/ipybox/site-packages). Empty when there is no library root. A sandboxed kernel
// reads it and never writes it (kernel_sandboxing.hpp); pip, on the host, fills it.
std::filesystem::path user_site_packages(const std::vector<std::filesystem::path>& library_roots);

}  // namespace ipybox::app
