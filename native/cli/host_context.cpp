#include "host_context.hpp"

#include <unistd.h>

#include <sstream>

#include "ipybox/core/log.hpp"
#include "ipybox/core/own_executable.hpp"
#include "ipybox/core/redactor.hpp"
#include "ipybox/core/untrusted_text.hpp"
#include "server_flags.hpp"

namespace ipybox::cli {

std::string screened(std::string_view text) {
    core::untrusted_text_options options;
    options.keep_line_breaks = true;
    options.escape_backslashes = false;  // parts of an error's text may be rendered already
    return core::render_untrusted(core::redact_secrets(text), options);
}

void add_kernel_flags(CLI::App& command, kernel_flags& flags) {
    command
        .add_option("--workspace", flags.workspace,
                    "Kernel working directory and import root (created if missing)")
        ->capture_default_str();
    command.add_option("--python", flags.python,
                       "Python interpreter with ipykernel (default: $IPYBOX_PYTHON, else the first "
                       "python3 that has ipykernel)");
    command
        .add_option("--env", flags.env, "KEY=VALUE set in the kernel's environment (repeatable)")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->allow_extra_args(false);
    command.add_option("--transport", flags.transport, "Kernel channel transport")
        ->check(CLI::IsMember({"ipc", "tcp"}))
        ->capture_default_str();
    command
        .add_option("--log-level", flags.log_level,
                    "Log level on stderr: trace, debug, info, warning, error, off")
        ->capture_default_str();
    add_sandbox_flags(command, flags.sandbox, flags.sandbox_config, flags.guessable_secrets);
    add_limit_flags(command, flags.limits);
    add_library_flag(command, flags.library);
}

void add_library_flag(CLI::App& command, std::vector<std::string>& library) {
    command
        .add_option("--library", library,
                    "A folder of saved code actions (gentools) importable as gentools.<category>."
                    "<name>, after the project's and the user's library (repeatable; more in "
                    "$IPYBOX_LIBRARY, ':'-separated)")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->allow_extra_args(false);
}

std::vector<std::filesystem::path> library_roots(const std::vector<std::string>& flags,
                                                 const process::environment_map& environment) {
    std::vector<std::filesystem::path> roots;
    const auto data_home = environment.find("XDG_DATA_HOME");
    const auto home = environment.find("HOME");
    if (data_home != environment.end() && std::filesystem::path(data_home->second).is_absolute()) {
        roots.push_back(std::filesystem::path(data_home->second) / "ipybox" / "gentools");
    } else if (home != environment.end() && !home->second.empty()) {
        roots.push_back(std::filesystem::path(home->second) / ".local" / "share" / "ipybox" /
                        "gentools");
    }
    if (!roots.empty()) {
        std::error_code error;  // a read-only home still leaves the other roots usable
        std::filesystem::create_directories(roots.front(), error);
    }
    for (const auto& flag : flags) roots.push_back(std::filesystem::absolute(flag));
    if (const auto it = environment.find("IPYBOX_LIBRARY"); it != environment.end()) {
        std::stringstream entries(it->second);
        for (std::string entry; std::getline(entries, entry, ':');) {
            if (!entry.empty()) roots.push_back(std::filesystem::absolute(entry));
        }
    }
    return roots;
}

void add_sandbox_flags(CLI::App& command, bool& sandbox, std::optional<std::string>& config,
                       std::vector<std::string>& guessable_secrets) {
    command.add_flag("--sandbox", sandbox,
                     "Run the kernel under srt: no network, writes only to the workspace, no .env "
                     "(fails closed when srt cannot run)");
    command.add_option("--sandbox-config", config,
                       "srt settings for the kernel sandbox (JSON: network.allowedDomains, "
                       "filesystem.allowWrite, ...); implies --sandbox");
    command.add_option(
        "--allow-guessable-secret", guessable_secrets,
        "Fill ${NAME} into servers a sandboxed kernel can call even though its value "
        "is easy to guess (refused by default: the kernel could find it by trying "
        "candidates); repeatable");
}

std::optional<kernel_sandbox> sandbox_from_flags(
    bool sandbox, const std::optional<std::string>& config,
    const std::vector<std::string>& guessable_secrets) {
    if (!sandbox && !config) return std::nullopt;
    kernel_sandbox result;
    result.guessable_secrets_allowed.insert(guessable_secrets.begin(), guessable_secrets.end());
    result.srt_fallbacks = installed_srt();
    if (config) {
        result.settings = parse_json_argument("--sandbox-config", "@" + *config);
        if (!result.settings.is_object()) {
            throw CLI::ValidationError("--sandbox-config", *config + " must hold a JSON object");
        }
        // The kernel must not be able to loosen the sandbox of the sessions after it.
        result.unwritable.push_back(std::filesystem::absolute(*config).lexically_normal());
    }
    return result;
}

std::optional<std::filesystem::path> installed_share_directory() {
    const auto exe = core::own_executable();
    if (!exe) return std::nullopt;
    return exe->parent_path().parent_path() / "share" / "ipybox";
}

std::vector<std::filesystem::path> installed_srt() {
    const auto share = installed_share_directory();
    if (!share) return {};
    return {*share / "sandbox-runtime" / "node_modules" / ".bin" / "srt"};
}

std::filesystem::path runtime_directory(const process::environment_map& environment) {
    if (const auto it = environment.find("IPYBOX_RUNTIME_DIR"); it != environment.end()) {
        return it->second;
    }
    if (const auto share = installed_share_directory()) {
        auto installed = *share / "python";
        if (std::filesystem::exists(installed / "ipybox_runtime")) return installed;
    }
    return IPYBOX_SOURCE_PYTHON_DIR;
}

code_executor_options executor_options(const kernel_flags& flags,
                                       const process::environment_map& environment) {
    code_executor_options options;
    options.workspace = std::filesystem::absolute(flags.workspace);
    options.host_environment = environment;
    if (flags.python) options.python = *flags.python;
    if (const auto it = environment.find("IPYBOX_PYTHON");
        it != environment.end() && !it->second.empty()) {
        options.python_override = it->second;
    }
    options.runtime_directory = runtime_directory(environment);
    options.transport = flags.transport;
    options.sandbox =
        sandbox_from_flags(flags.sandbox, flags.sandbox_config, flags.guessable_secrets);
    options.limits = limits_from_flags(flags.limits, environment);
    options.library_roots = library_roots(flags.library, environment);
    constexpr std::string_view prefix = "KERNEL_ENV_";
    for (const auto& [name, value] : environment) {
        if (name.size() > prefix.size() && name.rfind(prefix, 0) == 0) {
            options.kernel_env[name.substr(prefix.size())] = value;
        }
    }
    for (const auto& entry : flags.env) {
        const auto eq = entry.find('=');
        if (eq == std::string::npos || eq == 0) {
            throw CLI::ValidationError("--env", "expected KEY=VALUE, got '" + entry + "'");
        }
        options.kernel_env[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    return options;
}

}  // namespace ipybox::cli
