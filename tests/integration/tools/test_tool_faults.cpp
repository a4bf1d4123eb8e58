// MCP servers that crash, hang, print garbage or cannot start: each becomes a clear error in
// the kernel, and the next call gets a fresh server.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <thread>

#include "tool_fixture.hpp"

using namespace ipybox;
using namespace ipybox::testing;
using namespace std::chrono_literals;

namespace {

// Calls the fake server's only tool and prints the result or the error.
const char* call_noop =
    "from mcptools.fake import noop\n"
    "from ipybox_runtime.errors import ToolRunnerError\n"
    "try:\n    print('ok:', noop.run(noop.Params()))\n"
    "except ToolRunnerError as e:\n    print('error:', e)";

}  // namespace

TEST_SUITE("tools.faults") {
    TEST_CASE("a server that crashes mid-call gives an error, and the next call starts it again") {
        code_executor executor(tool_executor_options("crash"));
        executor.register_mcp_server("fake", fake_server_params("crash-on-call"));
        const auto first = executor.execute(call_noop).text;
        CHECK(first.find("error:") == 0);
        CHECK(first.find("exited with code 3") != std::string::npos);
        const auto second = executor.execute(call_noop).text;
        CHECK(second.find("error:") == 0);  // restarted, and crashed again: not "closed" forever
        CHECK(second.find("exited with code 3") != std::string::npos);
    }

    TEST_CASE("a server that hangs hits the tool call timeout") {
        auto options = tool_executor_options("hang");
        options.tool_call_timeout = 1500ms;
        code_executor executor(options);
        executor.register_mcp_server("fake", fake_server_params("hang-on-call"));
        const auto text = executor.execute(call_noop, 60s).text;
        CHECK(text.find("error:") == 0);
        CHECK(text.find("tools/call") != std::string::npos);
    }

    TEST_CASE("a call still running when its execution times out or is cancelled is cancelled") {
        auto options = tool_executor_options("abandoned-call");
        code_executor executor(options);
        const auto record = options.workspace / "cancelled.jsonl";
        auto params = fake_server_params("hang-on-call");
        params["env"] = {{"FAKE_SERVER_RECORD", record.string()}};
        executor.register_mcp_server("fake", params);
        const auto cancelled_count = [&] {
            std::ifstream in(record);
            return std::count(std::istreambuf_iterator<char>(in), {}, '\n');
        };
        const auto wait_for = [&](long count) {
            for (int i = 0; i < 100 && cancelled_count() < count; ++i)
                std::this_thread::sleep_for(50ms);
            return cancelled_count();
        };

        const auto started = std::chrono::steady_clock::now();
        CHECK_THROWS_AS(executor.execute(call_noop, 1s), code_execution_error);
        CHECK(wait_for(1) == 1);  // the server heard about it, long before tool_call_timeout
        CHECK(std::chrono::steady_clock::now() - started < 30s);

        auto stream = executor.stream(call_noop);
        std::thread canceller([&] {
            std::this_thread::sleep_for(500ms);
            executor.cancel();
        });
        while (auto event = stream.next()) {
            if (auto* request = std::get_if<approval_request>(&*event)) request->accept();
            if (auto* result = std::get_if<code_execution_result>(&*event))
                CHECK(result->cancelled);
        }
        canceller.join();
        CHECK(wait_for(2) == 2);
        // The kernel and the server are still usable.
        CHECK(executor.execute("print('alive')").text == "alive");
    }

    TEST_CASE("a server that prints garbage on stdout still works") {
        code_executor executor(tool_executor_options("garbage"));
        executor.register_mcp_server("fake", fake_server_params("garbage"));
        CHECK(executor.execute(call_noop).text == "ok: ok");
    }

    TEST_CASE("a server whose command does not exist is an error naming it") {
        code_executor executor(tool_executor_options("no-command"));
        CHECK_THROWS_WITH(
            executor.register_mcp_server("ghost", {{"command", "/nonexistent/mcp-server"},
                                                   {"args", nlohmann::json::array()}}),
            doctest::Contains("/nonexistent/mcp-server"));
    }

    TEST_CASE("reset closes MCP sessions, the next call starts the server again") {
        code_executor executor(tool_executor_options("reset-sessions"));
        executor.register_mcp_server("everything", everything_params());
        CHECK(executor
                  .execute("from mcptools.everything import echo\n"
                           "echo.run(echo.Params(message='a'))")
                  .text == "'Echo: a'");
        executor.reset();
        CHECK(executor
                  .execute("from mcptools.everything import echo\n"
                           "echo.run(echo.Params(message='b'))")
                  .text == "'Echo: b'");
    }

    TEST_CASE("calling a tool the server does not have is a ToolRunnerError") {
        code_executor executor(tool_executor_options("unknown-tool"));
        executor.register_mcp_server("everything", everything_params());
        const auto text = executor
                              .execute(
                                  "from ipybox_runtime.tool_client import call_tool\n"
                                  "from ipybox_runtime.errors import ToolRunnerError\n"
                                  "try:\n    call_tool('everything', 'no-such-tool', {})\n"
                                  "except ToolRunnerError as e:\n    print('error:', e)")
                              .text;
        CHECK(text.find("error:") == 0);
    }
}
