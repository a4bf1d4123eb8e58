#include "package_installer.hpp"

#include <mutex>
#include <optional>

#include "ipybox/core/private_directory.hpp"
#include "ipybox/process/child_process.hpp"
#include "site_packages.hpp"

namespace ipybox::app {

install_outcome install_with_pip(const std::filesystem::path& python, const std::string& spec,
                                 const std::filesystem::path& working_directory,
                                 const std::filesystem::path& workspace,
                                 const std::filesystem::path& relative_target,
                                 const std::map<std::string, std::string>& host_environment,
                                 std::chrono::milliseconds timeout) {
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
    process::spawn_options options;
    options.executable = python;
    // "--" ends pip's options: whatever the spec holds, it is a requirement.
    options.arguments = {
        "-m",       "pip",           "install",   "--no-input", "--disable-pip-version-check",
        "--target", target.string(), "--upgrade", "--",         spec};
    options.environment = environment;
    options.working_directory = working_directory;  // a relative path spec means the workspace
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
        publish_site_packages(target, workspace, relative_target);
    } catch (const std::exception& e) {
        return {false, output + "\nnot installed into the workspace: " + e.what()};
    }
    return {true, output};
}

}  // namespace ipybox::app
