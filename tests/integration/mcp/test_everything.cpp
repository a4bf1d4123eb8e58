// Our client against the reference server @modelcontextprotocol/server-everything over stdio.
#include <cstdlib>

#include "integration_support.hpp"

using namespace ipybox::testing;
using namespace std::chrono_literals;
using ipybox::mcp::session::call_options;
using ipybox::mcp::session::tool_descriptor;

namespace {

std::string first_text(const ipybox::mcp::session::call_tool_result& result) {
    for (const auto& block : result.content) {
        if (block.value("type", "") == "text") return block.value("text", "");
    }
    return {};
}

}  // namespace

TEST_SUITE("mcp.integration.everything") {
    TEST_CASE("initializes with server-everything on protocol 2025-11-25") {
        stdio_connection c(node_server(everything_server(), {"stdio"}));
        const auto server = c.connect();
        CHECK(server.protocol_version == "2025-11-25");
        CHECK(server.server_info.name == "mcp-servers/everything");
        CHECK(server.capabilities.contains("tools"));
        CHECK_FALSE(server.instructions.empty());
    }

    TEST_CASE("lists the tools of server-everything with their schemas") {
        stdio_connection c(node_server(everything_server(), {"stdio"}));
        c.connect();
        const auto tools = c.await<std::vector<tool_descriptor>>(
            [&](auto handler) { c.client->list_tools(handler); });
        REQUIRE_FALSE(tools.error());
        std::map<std::string, tool_descriptor> by_name;
        for (const auto& tool : tools.value()) by_name[tool.name] = tool;
        for (const char* name : {"echo", "get-sum", "get-structured-content", "get-tiny-image",
                                 "trigger-long-running-operation", "get-env"}) {
            CHECK_MESSAGE(by_name.count(name) == 1, name);
        }
        CHECK(by_name["get-structured-content"].output_schema.is_object());
        CHECK(by_name["get-sum"].input_schema["properties"].contains("a"));
        CHECK(by_name["echo"].annotations.is_object());
    }

    TEST_CASE("calls get-sum and echo") {
        stdio_connection c(node_server(everything_server(), {"stdio"}));
        c.connect();
        CHECK(first_text(c.call("get-sum", {{"a", 2}, {"b", 3}})) == "The sum of 2 and 3 is 5.");
        const auto echo = c.call("echo", {{"message", "hello"}});
        CHECK(first_text(echo) == "Echo: hello");
        CHECK_FALSE(echo.is_error);
    }

    TEST_CASE("get-structured-content returns structuredContent") {
        stdio_connection c(node_server(everything_server(), {"stdio"}));
        c.connect();
        const auto result = c.call("get-structured-content", {{"location", "Chicago"}});
        REQUIRE(result.structured.is_object());
        CHECK(result.structured.contains("temperature"));
        CHECK(result.structured["conditions"].is_string());
    }

    TEST_CASE("get-tiny-image returns an image content block") {
        stdio_connection c(node_server(everything_server(), {"stdio"}));
        c.connect();
        const auto result = c.call("get-tiny-image", json::object());
        bool found = false;
        for (const auto& block : result.content) {
            if (block.value("type", "") != "image") continue;
            found = true;
            CHECK(block["mimeType"] == "image/png");
            CHECK(block["data"].get<std::string>().size() > 1000);
        }
        CHECK(found);
    }

    TEST_CASE("trigger-long-running-operation reports progress before its result") {
        stdio_connection c(node_server(everything_server(), {"stdio"}));
        c.connect();
        recorder<ipybox::mcp::jsonrpc::progress_update> updates;
        call_options options;
        options.on_progress = [updates](const auto& update) { updates.add(update); };
        const auto result =
            c.call("trigger-long-running-operation", {{"duration", 1}, {"steps", 4}}, options);
        CHECK(first_text(result).find("completed") != std::string::npos);
        // The last notification races the result on stdio (the server sends it just before).
        run_until(
            c.io, [&] { return updates.size() == 4; }, 500ms);
        const auto seen = updates.items();
        REQUIRE(seen.size() >= 3);
        CHECK(seen[0].progress == 1);
        CHECK(seen[0].total == 4);
    }

    TEST_CASE("the server sees only the allowlisted environment plus its own env") {
        ::setenv("IPYBOX_TEST_MUST_NOT_LEAK", "secret", 1);
        auto options = node_server(everything_server(), {"stdio"});
        options.env = {{"IPYBOX_TEST_PASSED", "yes"}};
        stdio_connection c(options);
        c.connect();
        const auto env = json::parse(first_text(c.call("get-env", json::object())));
        CHECK(env.value("IPYBOX_TEST_PASSED", "") == "yes");
        CHECK_FALSE(env.contains("IPYBOX_TEST_MUST_NOT_LEAK"));
        CHECK(env.contains("PATH"));
        ::unsetenv("IPYBOX_TEST_MUST_NOT_LEAK");
    }

    TEST_CASE("close ends the server process in an orderly way") {
        ipybox::mcp::session::client_options options;
        recorder<ipybox::mcp::transport::close_info> closed;
        options.on_closed = [closed](const auto& info) { closed.add(info); };
        stdio_connection c(node_server(everything_server(), {"stdio"}), options);
        c.connect();
        const auto started = std::chrono::steady_clock::now();
        c.client->close();
        REQUIRE(run_until(
            c.io, [&] { return closed.size() == 1; }, 10s));
        const auto info = closed.items()[0];
        CHECK(info.requested);
        CHECK(std::chrono::steady_clock::now() - started < 5s);
        MESSAGE("server-everything ended: " << info.reason);
    }
}
