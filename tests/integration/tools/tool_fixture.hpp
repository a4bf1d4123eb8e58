#pragma once
// A code_executor with real MCP servers from npm (tests/node) registered and generated.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ipybox/code_executor.hpp"

namespace ipybox::testing {

// The path of a package file under tests/node/node_modules; fails the test with the install
// command when the npm peers are missing (CI installs them; a missing peer is never a skip).
std::filesystem::path node_module(const std::string& relative);

nlohmann::json everything_params();                          // server-everything over stdio
nlohmann::json fake_server_params(const std::string& mode);  // tests/node/fake_server.mjs

code_executor_options tool_executor_options(const std::string& name);

// Gives the session a HOME of its own (an empty folder). A sandboxed session's kernel template is
// given up when a credential location under HOME appears or goes (~/.claude.json, ~/.npm/_logs:
// tests running beside it make them), so a test that expects its kernels forked must not share
// the host's HOME with them.
void use_own_home(code_executor_options& options, const std::string& name);

struct stream_record {
    std::vector<approval_request> approvals;
    std::string output;  // chunks joined
    std::optional<code_execution_result> result;
    std::optional<code_execution_error> error;
};

// Consumes a stream, answering each approval request with `decide` (accept when it returns true).
stream_record consume(code_execution_stream stream,
                      const std::function<bool(const approval_request&)>& decide);

}  // namespace ipybox::testing
