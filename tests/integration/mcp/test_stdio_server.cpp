// Our server (mcp_test_server: stdio server transport + server_session) over real pipes, driven
// by our own client, by raw JSON lines, and by the official TypeScript SDK client.
#include "integration_support.hpp"

using namespace ipybox::testing;
using namespace std::chrono_literals;
using ipybox::mcp::session::call_options;
using ipybox::mcp::session::tool_descriptor;

namespace {

std::string test_server() {
    return IPYBOX_MCP_TEST_SERVER;
}

ipybox::mcp::transport::stdio_client_options our_server() {
    ipybox::mcp::transport::stdio_client_options options;
    options.command = test_server();
    options.name = "ipybox-test-server";
    return options;
}

}  // namespace

TEST_SUITE("mcp.integration.stdio_server") {
    TEST_CASE("our client and our server talk over real pipes") {
        ipybox::mcp::session::client_options options;
        recorder<ipybox::mcp::transport::close_info> closed;
        options.on_closed = [closed](const auto& info) { closed.add(info); };
        stdio_connection c(our_server(), options);
        const auto server = c.connect();
        CHECK(server.server_info.name == "ipybox-test-server");
        const auto tools = c.await<std::vector<tool_descriptor>>(
            [&](auto handler) { c.client->list_tools(handler); });
        REQUIRE_FALSE(tools.error());
        CHECK(tools.value().size() == 5);
        CHECK(c.call("echo", {{"message", "pipes"}}).content[0]["text"] == "Echo: pipes");
        CHECK(c.call("add", {{"a", 1}, {"b", 2}}).structured == json{{"sum", 3}});
        CHECK(c.call("fail", json::object()).is_error);
        recorder<double> progress;
        call_options with_progress;
        with_progress.on_progress = [progress](const auto& update) {
            progress.add(update.progress);
        };
        c.call("steps", {{"count", 3}}, with_progress);
        CHECK(progress.items() == std::vector<double>{1, 2, 3});

        // Closing our end of its stdin makes the server exit on its own, with status 0.
        c.client->close();
        REQUIRE(run_until(
            c.io, [&] { return closed.size() == 1; }, 10s));
        CHECK(closed.items()[0].exit_code == 0);
        CHECK_FALSE(closed.items()[0].signal.has_value());
    }

    TEST_CASE("our server cancels a running tool when the client's call times out") {
        stdio_connection c(our_server());
        c.connect();
        call_options options;
        options.timeout = 200ms;
        const auto slow = c.await<ipybox::mcp::session::call_tool_result>([&](auto handler) {
            c.client->call_tool("slow", {{"milliseconds", 10000}}, options, handler);
        });
        CHECK(slow.failed_with<ipybox::mcp::jsonrpc::request_timeout>());
        CHECK(c.call("echo", {{"message", "still here"}}).content[0]["text"] == "Echo: still here");
    }

    TEST_CASE("our server answers raw JSON lines, including garbage, and exits at end of input") {
        const std::string input =
            "garbage\\n"
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\\r\\n"
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\\n"
            "[{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}]\\n";
        const auto output = run_command("printf '" + input + "' | " + quoted(test_server()) +
                                        " 2>/dev/null; echo \"exit=$?\"");
        std::vector<json> lines;
        std::istringstream stream(output);
        std::string line;
        std::string exit_line;
        while (std::getline(stream, line)) {
            if (line.rfind("exit=", 0) == 0) {
                exit_line = line;
            } else {
                lines.push_back(json::parse(line));
            }
        }
        REQUIRE(lines.size() == 4);
        CHECK(lines[0]["error"]["code"] == -32700);
        CHECK(lines[0]["id"].is_null());
        CHECK(lines[1] == json{{"jsonrpc", "2.0"}, {"id", 1}, {"result", json::object()}});
        CHECK(lines[2]["error"]["code"] == -32600);  // tools/list before initialize
        CHECK(lines[3]["error"]["code"] == -32600);  // batches are refused
        CHECK(exit_line == "exit=0");
    }

    TEST_CASE("the official TypeScript SDK client works with our server") {
        npm_peer("@modelcontextprotocol/sdk/package.json");
        const auto output =
            run_command(node_command() + " " + quoted((node_dir() / "sdk_client.mjs").string()) +
                        " " + quoted(test_server()) + " 2>/dev/null");
        INFO("sdk_client.mjs printed: " << output);
        const auto summary = json::parse(output);
        REQUIRE_FALSE(summary.contains("error"));
        CHECK(summary["server"]["name"] == "ipybox-test-server");
        CHECK(summary["tools"].size() == 5);
        CHECK(summary["echo"]["content"][0]["text"] == "Echo: hello");
        CHECK(summary["add"]["structuredContent"] == json{{"sum", 42}});
        CHECK(summary["fail"]["isError"] == true);
        CHECK(summary["progress"] == json::array({1, 2, 3}));
        CHECK(summary["unknown_tool_error"].get<std::string>().find("-32602") != std::string::npos);
        CHECK(summary["ping"] == true);
    }
}
