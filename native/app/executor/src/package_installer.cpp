#include "ipybox/executor/package_installer.hpp"

#include <mutex>
#include <optional>
#include <regex>

#include "ipybox/core/private_directory.hpp"
#include "ipybox/process/child_process.hpp"
#include "ipybox/process/host_python.hpp"
#include "site_packages.hpp"

namespace ipybox::app {

namespace {

// A requirement that names something on this machine rather than on an index or a VCS host.
bool is_local_path(const std::string& spec, const std::filesystem::path& workspace) {
    if (spec.rfind("file:", 0) == 0) return true;
    if (spec == "." || spec == ".." || spec.rfind("./", 0) == 0 || spec.rfind("../", 0) == 0 ||
        spec.front() == '/' || spec.front() == '~') {
        return true;
    }
    if (spec.find("://") != std::string::npos || spec.rfind("git+", 0) == 0) return false;
    std::error_code ignored;
    return std::filesystem::symlink_status(workspace / spec, ignored).type() !=
           std::filesystem::file_type::not_found;
}

// Under --sandbox only what comes from elsewhere is built: a plain requirement for an index
// ("name", "name[extra]>=1,<2; python_version>'3.8'") or a URL whose scheme reaches the network
// ("https://...", "git+https://...", "name @ git+ssh://..."). Anything else may name a folder the
// kernel wrote: a relative path (pip runs from "/"), file: URLs, git+file://, "name @ file:...".
bool fetched_from_elsewhere(const std::string& spec) {
    static const std::regex plain(
        R"(^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?(\[[A-Za-z0-9._,\s-]*\])?)"
        R"(\s*([=<>!~]=?=?\s*[A-Za-z0-9.*+!_-]+\s*(,\s*[=<>!~]=?=?\s*[A-Za-z0-9.*+!_-]+\s*)*)?)"
        R"((;[^@/\\]*)?$)");
    if (std::regex_match(spec, plain)) return true;
    static const std::regex remote(R"(^([A-Za-z0-9._-]+(\[[^\]]*\])?\s*@\s*)?)"
                                   R"(((git|hg|svn|bzr)\+)?(https?|ssh|git)://[^\s]+$)");
    return std::regex_match(spec, remote);
}

}  // namespace

install_outcome install_with_pip(const install_request& request) {
    const auto& spec = request.spec;
    const auto& host_environment = request.host_environment;
    const auto timeout = request.timeout;
    const auto first = spec.find_first_not_of(" \t");
    if (first == std::string::npos) return {false, "package_name is empty"};
    if (spec[first] == '-') {
        return {false, "refused '" + spec +
                           "': package_name is a package spec (a name, "
                           "name==version, a path or a git+ URL); pip options are not accepted"};
    }
    if (spec.find_first_of("\n\r") != std::string::npos) {
        return {false, "package_name must be a single line"};
    }
    // Also what keeps std::regex below (which recurses per character) within its stack.
    if (spec.size() > max_spec_bytes) {
        return {false, "package_name is longer than " + std::to_string(max_spec_bytes) + " bytes"};
    }
    std::string requirement = spec.substr(first);
    if (request.refuse_local_paths && !fetched_from_elsewhere(requirement)) {
        return {false, "refused '" + spec +
                           "': with --sandbox, install_package installs only from a package "
                           "index or a network URL (name, name==1.2, https://..., "
                           "git+https://...). A local path may hold what the sandboxed kernel "
                           "wrote, and building it would run that code on the host, outside the "
                           "sandbox. Install it from a cell instead: %pip install " +
                           requirement + " runs inside the sandbox."};
    }
    if (is_local_path(requirement, request.workspace)) {
        if (request.refuse_local_paths) {
            return {false, "refused '" + spec +
                               "': with --sandbox, install_package does not build packages from "
                               "local paths, which the sandboxed kernel can write (their build "
                               "would run on the host, outside the sandbox). Install it from a "
                               "cell instead: %pip install " +
                               requirement + " runs inside the sandbox."};
        }
        // pip runs from "/" (host_python): a relative path means the workspace.
        if (requirement.front() != '/' && requirement.front() != '~' &&
            requirement.rfind("file:", 0) != 0) {
            requirement = (request.workspace / requirement).lexically_normal().string();
        }
    }
    // pip writes only here; what it made reaches the workspace through publish_site_packages.
    std::optional<core::private_directory> staging;
    try {
        staging.emplace("ipybox-pip-");
    } catch (const std::exception& e) {
        return {false, std::string("cannot create a staging folder for pip: ") + e.what()};
    }
    const auto target = staging->path() / "target";

    // pip needs the usual variables plus proxy and pip settings of the host.
    auto environment = process::filter_environment(host_environment, process::default_allowlist());
    for (const auto& [name, value] : host_environment) {
        if (name.rfind("PIP_", 0) == 0 || name == "http_proxy" || name == "https_proxy" ||
            name == "no_proxy" || name == "HTTP_PROXY" || name == "HTTPS_PROXY" ||
            name == "NO_PROXY" || name == "SSL_CERT_FILE") {
            environment[name] = value;
        }
    }
    std::mutex mutex;
    std::string output;
    // "--" ends pip's options: whatever the spec holds, it is a requirement.
    auto options =
        process::host_python(request.python,
                             {"-m", "pip", "install", "--no-input", "--disable-pip-version-check",
                              "--target", target.string(), "--upgrade", "--", requirement},
                             environment);
    options.on_output_line = [&](std::string_view line) {
        std::lock_guard lock(mutex);
        if (output.size() < 64 * 1024) output.append(line).append("\n");
    };
    std::unique_ptr<process::child_process> child;
    try {
        child = process::child_process::spawn(std::move(options));
    } catch (const process::process_error& e) {
        return {false, e.what()};
    }
    const auto status = child->wait_for(timeout);
    if (!status) {
        child->terminate(std::chrono::milliseconds(1000));
        child.reset();
        return {false, output + "\npip did not finish within " +
                           std::to_string(timeout.count() / 1000) + " s and was stopped"};
    }
    child.reset();  // joins the output reader
    if (status->code != 0) return {false, output + "\npip " + status->describe()};
    try {
        publish_site_packages(target,
                              request.target_root.empty() ? request.workspace : request.target_root,
                              request.relative_target);
    } catch (const std::exception& e) {
        return {false, output + "\nnot installed into " +
                           (request.target_root.empty() ? std::string("the workspace")
                                                        : request.target_root.string()) +
                           ": " + e.what()};
    }
    return {true, output};
}

std::filesystem::path user_site_packages(const std::vector<std::filesystem::path>& library_roots) {
    if (library_roots.empty()) return {};
    auto library = library_roots.front().lexically_normal();
    if (!library.has_filename()) library = library.parent_path();  // a trailing '/'
    return library.parent_path() / "site-packages";
}

}  // namespace ipybox::app
