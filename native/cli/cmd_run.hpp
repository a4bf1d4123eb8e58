#pragma once
// `ipybox run [FILE]... [-c CODE]...`: runs each file and -c snippet, in command-line order, in
// one kernel, streaming output as it comes.
#include "host_context.hpp"
#include "server_flags.hpp"

namespace ipybox::cli {

struct run_options {
    kernel_flags kernel;
    std::vector<std::string> files;
    std::vector<std::string> snippets;
    std::vector<std::string> sources_in_order;  // filled after parsing: "f:<path>" or "c:<code>"
    std::optional<double> timeout_seconds;
    server_flags servers;
    bool generate = false;  // (re)write mcptools/<server>/ for every configured server first
    std::string approve;    // "ask", "all" or "none"; default: ask on a terminal, else all
    bool approve_shell_commands = false;  // shell commands (!cmd, %%bash) go through --approve too
};

void setup_run(CLI::App& app, run_options& options);
int run_run(const run_options& options, const process::environment_map& environment);

}  // namespace ipybox::cli
