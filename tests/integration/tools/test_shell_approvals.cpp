// Shell commands from kernel code wait for the application's decision when
// approve_shell_commands is on, and the command approved is the command that runs.
#include <doctest/doctest.h>

#include <fstream>

#include "tool_fixture.hpp"

using namespace ipybox;
using namespace ipybox::testing;
using namespace std::chrono_literals;

namespace {

code_executor_options shell_options(const std::string& name) {
    auto options = tool_executor_options("shell-" + name);
    options.approve_shell_commands = true;
    options.keep_spare_kernel = false;
    return options;
}

std::string command_of(const approval_request& request) {
    return request.as_shell_command()->command;
}

// Shell output comes through a pseudo-terminal, with \r\n line ends.
std::string without_cr(std::string text) {
    std::erase(text, '\r');
    return text;
}

const auto approve_all = [](const approval_request&) { return true; };
const auto reject_all = [](const approval_request&) { return false; };

}  // namespace

TEST_SUITE("tools.shell_approvals") {
    TEST_CASE("!cmd asks about a shell command with the command, then runs it") {
        code_executor executor(shell_options("bang"));
        const auto record = consume(executor.stream("!echo hello"), approve_all);
        REQUIRE(record.approvals.size() == 1);
        const auto& request = record.approvals[0];
        REQUIRE(request.is_shell_command());
        CHECK(request.as_shell_command()->kind == approval::shell_command::form::line);
        CHECK(command_of(request) == "echo hello");
        CHECK(request.as_tool_call() == nullptr);
        CHECK(request.server_name().empty());  // no server: it is not a tool call
        REQUIRE(record.result);
        CHECK(record.result->text == "hello");
    }

    TEST_CASE("the approved text is the expanded command, and it is expanded only once") {
        code_executor executor(shell_options("expand"));
        executor.execute("x = 'world'\nHOME_NAME = 'not-used'");
        // {x} and $x come from the user's namespace, $$ is a literal $ for the shell, and an
        // undefined name leaves the whole line as written (IPython's rule).
        auto record = consume(executor.stream("!echo {x} $x $$HOME_NAME"), approve_all);
        REQUIRE(record.approvals.size() == 1);
        CHECK(command_of(record.approvals[0]) == "echo world world $HOME_NAME");
        REQUIRE(record.result);
        CHECK(record.result->text == "world world");  // the shell saw $HOME_NAME, unset there

        record = consume(executor.stream("!echo {undefined_name}"), approve_all);
        REQUIRE(record.approvals.size() == 1);
        CHECK(command_of(record.approvals[0]) == "echo {undefined_name}");
    }

    TEST_CASE("a command in a function sees the function's locals, as IPython would") {
        code_executor executor(shell_options("locals"));
        const auto record = consume(executor.stream("def f():\n"
                                                    "    cmd = 'inner'\n"
                                                    "    !echo {cmd}\n"
                                                    "f()"),
                                    approve_all);
        REQUIRE(record.approvals.size() == 1);
        CHECK(command_of(record.approvals[0]) == "echo inner");
        REQUIRE(record.result);
        CHECK(record.result->text == "inner");
    }

    TEST_CASE("x = !cmd and !!cmd ask too, and each command is its own request") {
        code_executor executor(shell_options("getoutput"));
        const auto record = consume(executor.stream("lines = !echo captured\n"
                                                    "print(list(lines))\n"
                                                    "!echo one\n"
                                                    "!echo two"),
                                    approve_all);
        REQUIRE(record.approvals.size() == 3);
        CHECK(command_of(record.approvals[0]) == "echo captured");
        CHECK(command_of(record.approvals[1]) == "echo one");
        CHECK(command_of(record.approvals[2]) == "echo two");
        REQUIRE(record.result);
        CHECK(without_cr(record.result->text) == "['captured']\none\ntwo");

        const auto bang_bang = consume(executor.stream("!!echo twice"), approve_all);
        REQUIRE(bang_bang.approvals.size() == 1);
        CHECK(command_of(bang_bang.approvals[0]) == "echo twice");
        REQUIRE(bang_bang.result);
        CHECK(bang_bang.result->text.find("twice") != std::string::npos);
    }

    TEST_CASE("aliases and %pip go through the same request") {
        code_executor executor(shell_options("aliases"));
        const auto record = consume(executor.stream("%ls -d /\n%pip --version"), approve_all);
        REQUIRE(record.approvals.size() == 2);
        CHECK(command_of(record.approvals[0]) == "ls -F -d /");  // IPython's alias, as it runs
        CHECK(command_of(record.approvals[1]).find("-m pip --version") != std::string::npos);
        REQUIRE(record.result);
        CHECK(record.result->text.find("pip ") != std::string::npos);
    }

    TEST_CASE("a rejected command raises ApprovalRejectedError and never runs") {
        const auto options = shell_options("reject");
        code_executor executor(options);
        const auto marker = options.workspace / "marker";
        const auto record = consume(executor.stream("!touch marker"), reject_all);
        REQUIRE(record.approvals.size() == 1);
        REQUIRE(record.error);
        CHECK(record.error->ename() == "ApprovalRejectedError");
        CHECK(std::string(record.error->what())
                  .find("Approval request for the shell command rejected") != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(marker));
        // The kernel goes on working.
        CHECK(executor.execute("print('still here')").text == "still here");
    }

    TEST_CASE("%%bash and %%sh ask about a shell cell with the whole cell") {
        code_executor executor(shell_options("magic"));
        for (const std::string magic : {"bash", "sh"}) {
            CAPTURE(magic);
            const auto record =
                consume(executor.stream("%%" + magic + "\necho first\necho second"), approve_all);
            REQUIRE(record.approvals.size() == 1);
            const auto& request = record.approvals[0];
            REQUIRE(request.is_shell_command());
            CHECK(request.as_shell_command()->kind == approval::shell_command::form::cell_magic);
            CHECK(command_of(request) == "echo first\necho second\n");
            CHECK(request.as_shell_command()->interpreter == magic);
            REQUIRE(record.result);
            CHECK(without_cr(record.result->text) == "first\nsecond");
        }
    }

    TEST_CASE("%%script shows its program and options, and a rejected cell does not run") {
        const auto options = shell_options("script");
        code_executor executor(options);
        const auto record = consume(
            executor.stream("%%script --out captured sh\ntouch marker\necho hi"), reject_all);
        REQUIRE(record.approvals.size() == 1);
        CHECK(record.approvals[0].as_shell_command()->interpreter == "--out captured sh");
        REQUIRE(record.error);
        CHECK(record.error->ename() == "ApprovalRejectedError");
        CHECK_FALSE(std::filesystem::exists(options.workspace / "marker"));
    }

    TEST_CASE("shell approval does not depend on approve_tool_calls") {
        auto options = shell_options("independent");
        options.approve_tool_calls = false;  // tool calls pass without asking; shell still asks
        code_executor executor(options);
        const auto record = consume(executor.stream("!echo asked"), reject_all);
        REQUIRE(record.approvals.size() == 1);
        REQUIRE(record.error);
        CHECK(record.error->ename() == "ApprovalRejectedError");
    }

    TEST_CASE("off by default: shell commands run without a request, even if the kernel env asks") {
        auto options = tool_executor_options("shell-off");
        options.kernel_env.emplace("IPYBOX_SHELL_APPROVAL", "1");  // cannot turn it on from here
        code_executor executor(options);
        const auto record = consume(executor.stream("!echo free"), reject_all);
        CHECK(record.approvals.empty());
        REQUIRE(record.result);
        CHECK(record.result->text == "free");
    }

    TEST_CASE("the kernel code cannot skip the request by calling the endpoint itself") {
        // Asking the tool server directly still goes through the application's decision.
        code_executor executor(shell_options("direct"));
        const auto record = consume(
            executor.stream("from ipybox_runtime.tool_client import request_shell_approval\n"
                            "request_shell_approval('shell', {'cmd': 'true'})\n"
                            "print('approved')"),
            reject_all);
        REQUIRE(record.approvals.size() == 1);
        REQUIRE(record.error);
        CHECK(record.error->ename() == "ApprovalRejectedError");
    }

    TEST_CASE("requests continue after reset and leave no names in the user namespace") {
        auto options = shell_options("reset");
        options.keep_spare_kernel = true;
        code_executor executor(options);
        executor.execute("pass");
        executor.reset();
        const auto record =
            consume(executor.stream("!echo again\n"
                                    "print(sorted(n for n in dir() if 'ipybox' in n.lower()))"),
                    approve_all);
        REQUIRE(record.approvals.size() == 1);
        REQUIRE(record.result);
        CHECK(without_cr(record.result->text) == "again\n[]");
    }

    TEST_CASE("the server name 'ipybox' is reserved for shell approvals") {
        code_executor executor(shell_options("reserved"));
        CHECK_THROWS_AS(executor.register_mcp_server("ipybox", everything_params(), false),
                        std::invalid_argument);
        auto options = tool_executor_options("reserved-option");
        options.mcp_servers["ipybox"] = everything_params();
        CHECK_THROWS_AS(code_executor{options}, std::invalid_argument);
    }
}
