#pragma once
// `ipybox doctor --approval-policy FILE`: validates an approval policy and shows, for the MCP
// servers registered in a workspace, which tools each rule covers and which rules cover none.
#include <filesystem>
#include <string>

#include "ipybox/process/environment.hpp"

namespace ipybox::cli {

// Prints the report on stdout. Returns exit_usage when the file is not a valid policy (the
// error names the key or value), exit_ok otherwise, also when rules cover nothing (reported).
int check_approval_policy(const std::string& policy_file, const std::filesystem::path& workspace,
                          const process::environment_map& environment);

}  // namespace ipybox::cli
