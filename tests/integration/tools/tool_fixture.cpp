#include "tool_fixture.hpp"

#include <doctest/doctest.h>

#include "ipybox/process/environment.hpp"
#include "test_paths.hpp"

namespace ipybox::testing {

std::filesystem::path node_module(const std::string& relative) {
    const auto path = source_dir() / "tests" / "node" / "node_modules" / relative;
    if (!std::filesystem::exists(path)) {
        FAIL("missing " << path.string()
                        << ": install the npm test peers with `npm install --prefix tests/node` "
                           "(run-tests.sh does it)");
    }
    return path;
}

nlohmann::json everything_params() {
    return {
        {"command", "node"},
        {"args",
         {node_module("@modelcontextprotocol/server-everything/dist/index.js").string(), "stdio"}}};
}

nlohmann::json fake_server_params(const std::string& mode) {
    return {{"command", "node"},
            {"args", {(source_dir() / "tests" / "node" / "fake_server.mjs").string(), mode}}};
}

code_executor_options tool_executor_options(const std::string& name) {
    code_executor_options options;
    options.workspace = fresh_directory(name);
    options.host_environment = process::current_environment();
    options.runtime_directory = source_dir() / "native" / "python";
    options.keep_spare_kernel = false;
    return options;
}

void use_own_home(code_executor_options& options, const std::string& name) {
    options.host_environment["HOME"] = fresh_directory(name + "-home").string();
}

stream_record consume(code_execution_stream stream,
                      const std::function<bool(const approval_request&)>& decide) {
    stream_record record;
    try {
        while (auto event = stream.next()) {
            if (auto* chunk = std::get_if<code_execution_chunk>(&*event)) {
                record.output += chunk->text;
            } else if (auto* request = std::get_if<approval_request>(&*event)) {
                record.approvals.push_back(*request);
                decide(*request) ? request->accept() : request->reject();
            } else {
                record.result = std::get<code_execution_result>(*event);
            }
        }
    } catch (const code_execution_error& e) {
        record.error = e;
    }
    return record;
}

}  // namespace ipybox::testing
