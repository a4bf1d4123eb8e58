#pragma once
// `ipybox gentools check`: checks every saved code action of the project and the user-level
// libraries in a fresh kernel (ipybox_runtime.checks) and exits non-zero when one is broken.
#include "host_context.hpp"
#include "server_flags.hpp"

namespace ipybox::cli {

struct gentools_options {
    kernel_flags kernel;
    server_flags servers;          // servers the examples in api.py docstrings may call
    std::string approve = "none";  // "none": tool calls in examples are refused (a dry check)
};

void setup_gentools(CLI::App& app, gentools_options& options);
int run_gentools_check(const gentools_options& options,
                       const process::environment_map& environment);

}  // namespace ipybox::cli
