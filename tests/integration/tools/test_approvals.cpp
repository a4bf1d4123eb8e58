// Every tool call from kernel code waits for the application's decision.
#include <doctest/doctest.h>

#include <thread>

#include "tool_fixture.hpp"

using namespace ipybox;
using namespace ipybox::testing;
using namespace std::chrono_literals;

namespace {

const char* two_calls =
    "from mcptools.everything import get_sum, echo\n"
    "print(get_sum.run(get_sum.Params(a=2, b=3)))\n"
    "print(echo.run(echo.Params(message='hi')))";

}  // namespace

TEST_SUITE("tools.approvals") {
    TEST_CASE(
        "each call is an approval request naming the server, the original tool name and the "
        "arguments") {
        code_executor executor(tool_executor_options("approval-info"));
        executor.register_mcp_server("everything", everything_params());
        const auto record = consume(executor.stream(two_calls), [](auto&) { return true; });
        REQUIRE(record.approvals.size() == 2);
        CHECK(record.approvals[0].server_name() == "everything");
        CHECK(record.approvals[0].tool_name() == "get-sum");  // module get_sum, MCP name get-sum
        CHECK(record.approvals[0].tool_args() == nlohmann::json{{"a", 2}, {"b", 3}});
        CHECK(record.approvals[1].tool_name() == "echo");
        REQUIRE(record.result);
        CHECK(record.result->text == "The sum of 2 and 3 is 5.\nEcho: hi");
    }

    TEST_CASE(
        "a rejected call raises ApprovalRejectedError in the kernel and never runs the tool") {
        code_executor executor(tool_executor_options("reject"));
        executor.register_mcp_server("everything", everything_params());
        const auto record = consume(executor.stream(two_calls), [](const approval_request& r) {
            return r.tool_name() != "echo";
        });
        REQUIRE(record.error);
        CHECK(record.error->ename() == "ApprovalRejectedError");
        CHECK(std::string(record.error->what()).find("rejected") != std::string::npos);
        CHECK(record.error->output() == "The sum of 2 and 3 is 5.");
    }

    TEST_CASE("execute() approves every call") {
        code_executor executor(tool_executor_options("auto"));
        executor.register_mcp_server("everything", everything_params());
        CHECK(executor.execute(two_calls).text == "The sum of 2 and 3 is 5.\nEcho: hi");
    }

    TEST_CASE("with approve_tool_calls off no requests are raised") {
        auto options = tool_executor_options("no-approval");
        options.approve_tool_calls = false;
        code_executor executor(options);
        executor.register_mcp_server("everything", everything_params());
        const auto record = consume(executor.stream(two_calls), [](auto&) { return false; });
        CHECK(record.approvals.empty());
        REQUIRE(record.result);
    }

    TEST_CASE("an undecided request expires after approval_timeout") {
        auto options = tool_executor_options("approval-timeout");
        options.approval_timeout = 300ms;
        code_executor executor(options);
        executor.register_mcp_server("everything", everything_params());
        auto stream = executor.stream(
            "from mcptools.everything import echo\n"
            "from ipybox_runtime.errors import ApprovalTimeoutError\n"
            "try:\n    echo.run(echo.Params(message='x'))\n"
            "except ApprovalTimeoutError as e:\n    print('expired:', e)");
        std::string output;
        while (auto event = stream.next()) {
            if (auto* chunk = std::get_if<code_execution_chunk>(&*event)) output += chunk->text;
            // Requests are left undecided on purpose.
        }
        CHECK(output.find("expired: Approval request for everything.echo expired") == 0);
    }

    TEST_CASE("the execution timeout does not count time spent waiting for approval") {
        code_executor executor(tool_executor_options("paused-clock"));
        executor.register_mcp_server("everything", everything_params());
        executor.execute(
            "from mcptools.everything import echo\necho.run(echo.Params(message='warm'))");
        const auto record = consume(
            executor.stream("print(echo.run(echo.Params(message='late')))", 1000ms), [](auto&) {
                std::this_thread::sleep_for(1500ms);
                return true;
            });
        REQUIRE(record.result);
        CHECK(record.result->text == "Echo: late");
    }

    TEST_CASE("the timeout still applies to work after the approval") {
        code_executor executor(tool_executor_options("clock-after"));
        executor.register_mcp_server("everything", everything_params());
        const auto record = consume(
            executor.stream("from mcptools.everything import echo\n"
                            "echo.run(echo.Params(message='x'))\nimport time\ntime.sleep(5)",
                            500ms),
            [](auto&) { return true; });
        REQUIRE(record.error);
        CHECK(record.error->error_kind() == code_execution_error::kind::timeout);
    }

    TEST_CASE("cancel() while a call waits for approval ends the execution as cancelled") {
        code_executor executor(tool_executor_options("cancel-approval"));
        executor.register_mcp_server("everything", everything_params());
        auto stream = executor.stream(
            "from mcptools.everything import echo\necho.run(echo.Params(message='x'))");
        std::optional<code_execution_result> result;
        while (auto event = stream.next()) {
            if (std::holds_alternative<approval_request>(*event)) executor.cancel();
            if (auto* done = std::get_if<code_execution_result>(&*event)) result = *done;
        }
        REQUIRE(result);
        CHECK(result->cancelled);
        CHECK(executor.execute("print('usable')").text == "usable");
    }
}
