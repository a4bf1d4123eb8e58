#pragma once
// What the command line learns from the host: its environment, where the Python runtime
// package is installed, and the options every subcommand shares.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>
#include <string>

#include "exit_codes.hpp"  // exit_code: of every subcommand
#include "ipybox/code_executor.hpp"
#include "ipybox/process/environment.hpp"
#include "limit_flags.hpp"
#include "registry_location.hpp"  // registry_file: where the server registry lives

namespace ipybox::cli {

// Text from elsewhere (an error's what(), a server's tool name) as the terminal may show it:
// values filled from ${VAR} placeholders redacted (core/redactor.hpp), control and invisible
// characters shown escaped with line breaks kept (core/untrusted_text.hpp). Everything the CLI
// prints that it did not write itself goes through it.
std::string screened(std::string_view text);

// Options shared by subcommands that run a kernel.
struct kernel_flags {
    std::string workspace = ".";
    std::optional<std::string> python;
    std::vector<std::string> env;  // KEY=VALUE for the kernel
    std::string transport = "ipc";
    std::string log_level = "warning";
    bool sandbox = false;
    std::optional<std::string> sandbox_config;
    std::vector<std::string> guessable_secrets;  // --allow-guessable-secret NAME
    limit_flags limits;
    std::vector<std::string> library;  // --library DIR: more gentools roots
};

void add_kernel_flags(CLI::App& command, kernel_flags& flags);
// --sandbox, --sandbox-config FILE (which implies --sandbox) and --allow-guessable-secret NAME.
void add_sandbox_flags(CLI::App& command, bool& sandbox, std::optional<std::string>& config,
                       std::vector<std::string>& guessable_secrets);

// --library DIR (repeatable): a gentools root after the project's and the user's library.
void add_library_flag(CLI::App& command, std::vector<std::string>& library);

// The user-level gentools roots, in precedence order: the user's library
// ($XDG_DATA_HOME/ipybox/gentools, else ~/.local/share/ipybox/gentools; created when missing),
// then each --library, then each entry of $IPYBOX_LIBRARY (separated by ':').
std::vector<std::filesystem::path> library_roots(const std::vector<std::string>& flags,
                                                 const process::environment_map& environment);

// The kernel sandbox the flags ask for, or nullopt. Reads the config file; throws
// CLI::ValidationError when it is missing or not a JSON object. srt is looked for as
// kernel_sandbox says, then in the copy install.sh puts next to the binary
// (<prefix>/share/ipybox/sandbox-runtime).
std::optional<kernel_sandbox> sandbox_from_flags(bool sandbox,
                                                 const std::optional<std::string>& config,
                                                 const std::vector<std::string>& guessable_secrets);

// <exe>/../share/ipybox, where an installed ipybox keeps its data.
std::optional<std::filesystem::path> installed_share_directory();

// Where install.sh puts srt next to the binary: <share>/sandbox-runtime/node_modules/.bin/srt
// (a list for kernel_sandbox::srt_fallbacks; empty when the share directory is unknown).
std::vector<std::filesystem::path> installed_srt();

// The folder that holds ipybox_runtime/: $IPYBOX_RUNTIME_DIR, else <exe>/../share/ipybox/python
// (installed), else the source tree this binary was built from.
std::filesystem::path runtime_directory(const process::environment_map& environment);

// Executor options from the flags and the host (library_roots as above): kernel_env = KERNEL_ENV_*
// (prefix stripped), then --env. Throws CLI::ValidationError for a malformed --env.
code_executor_options executor_options(const kernel_flags& flags,
                                       const process::environment_map& environment);

}  // namespace ipybox::cli
