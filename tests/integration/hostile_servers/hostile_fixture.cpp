#include "hostile_fixture.hpp"

#include <doctest/doctest.h>

#include <cstdlib>

#include "ipybox/process/executables.hpp"
#include "test_paths.hpp"

namespace ipybox::testing {
namespace {

std::filesystem::path python() {
    const char* path = std::getenv("PATH");
    const auto found = process::find_executable("python3", path != nullptr ? path : "");
    REQUIRE_MESSAGE(found.has_value(), "python3 is not on PATH");
    return *found;
}

std::filesystem::path script() {
    return source_dir() / "tests" / "integration" / "hostile_servers" / "hostile_server.py";
}

}  // namespace

nlohmann::json far_deadlines() {
    return {{"connect", 600},  {"request", 600},     {"call", 600},
            {"max_list", 600}, {"max_request", 600}, {"max_call", 600}};
}

nlohmann::json near_deadlines() {
    return {{"connect", 10}, {"request", 1},     {"call", 1},
            {"max_list", 3}, {"max_request", 3}, {"max_call", 3}};
}

nlohmann::json trickle_deadlines() {
    return {{"connect", 10}, {"request", 2}, {"max_list", 3}, {"max_request", 600}};
}

std::string listing_limit_message(int millis) {
    return "MCP server 'hostile' did not finish listing its tools within the listing's total "
           "limit of " +
           std::to_string(millis) + " ms (tools/list, page 1, 0 tools read so far)";
}

hostile_connection::hostile_connection(hostile_transport transport, const std::string& mode,
                                       const nlohmann::json& timeouts) {
    nlohmann::json params;
    if (transport == hostile_transport::stdio) {
        params = {{"command", python().string()}, {"args", {script().string(), "stdio", mode}}};
    } else {
        auto url = std::make_shared<std::promise<std::string>>();
        auto told = std::make_shared<std::once_flag>();
        process::spawn_options options;
        options.executable = python();
        options.arguments = {script().string(),
                             transport == hostile_transport::sse ? "sse" : "http", mode};
        options.environment = {{"PATH", std::getenv("PATH") ? std::getenv("PATH") : ""}};
        options.working_directory = fresh_directory("hostile");
        options.on_output_line = [url, told](std::string_view line) {
            std::call_once(*told, [&] { url->set_value(std::string(line)); });
        };
        http_server_ = process::child_process::spawn(std::move(options));
        auto printed = url->get_future();
        REQUIRE_MESSAGE(printed.wait_for(std::chrono::seconds(20)) == std::future_status::ready,
                        "hostile_server.py did not print its URL");
        params = {{"url", printed.get()},
                  {"type", transport == hostile_transport::sse ? "sse" : "streamable_http"}};
    }
    params["timeouts"] = timeouts;
    runtime_ = std::make_unique<app::mcp_runtime>();
    app::pool_options options;
    options.variables = [](std::string_view) { return std::optional<std::string>(); };
    options.default_cwd = fresh_directory("hostile-cwd");
    pool_ = std::make_unique<app::mcp_client_pool>(runtime_->io(), options);
    pool_->register_server("hostile", params);
}

hostile_connection::~hostile_connection() {
    pool_.reset();     // closes the session (a stdio server ends with it)
    runtime_.reset();  // then the loop that ran it
    if (http_server_) http_server_->terminate(std::chrono::seconds(2));
}

}  // namespace ipybox::testing
