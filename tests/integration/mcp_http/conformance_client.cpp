// Adapter between the MCP conformance suite (npm @modelcontextprotocol/conformance) and our
// client: `conformance_client <server URL>`, scenario in MCP_CONFORMANCE_SCENARIO. It connects
// over Streamable HTTP with client_session, lists the tools, calls the one the scenario expects,
// closes, and exits 0; any failure is printed on stderr with exit status 1. Never writes stdout.
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <chrono>
#include <cstdlib>
#include <future>
#include <iostream>
#include <thread>

#include "ipybox/core/log.hpp"
#include "ipybox/mcp/http/transport_factory.hpp"
#include "ipybox/mcp/session/client_session.hpp"

namespace {

using namespace std::chrono_literals;
namespace session = ipybox::mcp::session;

// The suite hands out http://localhost:<port>; our traffic stays on 127.0.0.1.
std::string loopback_v4(std::string url) {
    const std::string host = "://localhost";
    if (const auto at = url.find(host); at != std::string::npos) {
        url.replace(at, host.size(), "://127.0.0.1");
    }
    return url;
}

// The tool each scenario checks for, with its arguments; empty name: none.
std::pair<std::string, nlohmann::json> scenario_tool(const std::string& scenario) {
    if (scenario == "tools_call") return {"add_numbers", {{"a", 5}, {"b", 3}}};
    if (scenario == "sse-retry") return {"test_reconnection", nlohmann::json::object()};
    return {"", nullptr};
}

int run(const std::string& url, const std::string& scenario) {
    boost::asio::io_context io;
    auto work = boost::asio::make_work_guard(io);
    std::thread runner([&io] { io.run(); });
    std::promise<void> closed;
    session::client_options options;
    options.name = "conformance";
    options.on_closed = [&closed](const auto&) { closed.set_value(); };
    auto channel = ipybox::mcp::http::make_http_transport(
        io, {{"url", loopback_v4(url)}, {"type", "streamable_http"}, {"timeout", 10}},
        "conformance");
    auto client = session::client_session::create(io, channel, options);
    int status = 0;
    try {
        const auto server = client->initialize(boost::asio::use_future).get();
        std::cerr << "connected to " << server.server_info.name << " (MCP "
                  << server.protocol_version << ")\n";
        const auto tools = client->list_tools(boost::asio::use_future).get();
        std::cerr << tools.size() << " tools\n";
        const auto [tool, arguments] = scenario_tool(scenario);
        if (!tool.empty()) {
            const auto result =
                client->call_tool(tool, arguments, {}, boost::asio::use_future).get();
            std::cerr << tool << ": " << result.to_json().dump() << "\n";
            if (result.is_error) status = 1;
        }
    } catch (const std::exception& error) {
        std::cerr << "conformance_client: " << error.what() << "\n";
        status = 1;
    }
    client->close();
    if (closed.get_future().wait_for(10s) != std::future_status::ready) {
        std::cerr << "conformance_client: the transport did not close within 10 s\n";
        status = 1;
    }
    work.reset();
    io.stop();
    runner.join();
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: conformance_client <server URL>  (scenario in "
                     "MCP_CONFORMANCE_SCENARIO)\n";
        return 2;
    }
    const char* scenario = std::getenv("MCP_CONFORMANCE_SCENARIO");
    ipybox::core::set_log_level("info");
    return run(argv[argc - 1], scenario != nullptr ? scenario : "");
}
