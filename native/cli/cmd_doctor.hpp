#pragma once
// `ipybox doctor`: what ipybox found on this machine, what is missing, and how to install it.
#include "host_context.hpp"

namespace ipybox::cli {

struct doctor_options {
    std::optional<std::string> python;
    std::optional<std::string> approval_policy;  // check this policy file instead
    std::string workspace = ".";  // whose registered servers the policy is checked against
};

void setup_doctor(CLI::App& app, doctor_options& options);
int run_doctor(const doctor_options& options, const process::environment_map& environment);

}  // namespace ipybox::cli
