// How an execution ended is one value, converted once at each edge: the kernel's outcome into the
// C++ API's result or failure (execution_outcomes.hpp), the failure into an MCP tool result
// (cell_output.hpp) and, at the blocking API's edge only, into code_execution_error.
#include <doctest/doctest.h>

#include "cell_output.hpp"
#include "execution_outcomes.hpp"
#include "ipybox/kernel/interpreter.hpp"
#include "ipybox/kernel/kernel_instance.hpp"
#include "ipybox/sandbox/srt_launcher.hpp"

using namespace ipybox;
using kernel_kind = kernel::execution_outcome::kind;
using failure_kind = code_execution_failure::kind;

namespace {

kernel::execution_outcome ended(kernel_kind kind, std::string message = {},
                                bool state_kept = true) {
    kernel::execution_outcome outcome;
    outcome.ending = kind;
    outcome.message = std::move(message);
    outcome.state_kept = state_kept;
    outcome.result.text = "printed before";
    return outcome;
}

code_execution_failure failure_of(kernel::execution_outcome outcome) {
    auto step = app::to_api(std::move(outcome));
    REQUIRE(std::holds_alternative<code_execution_failure>(step));
    return std::get<code_execution_failure>(std::move(step));
}

std::string mcp_text(const mcp::session::call_tool_result& result) {
    return result.content.at(0).at("text").get<std::string>();
}

app::cell_output_options mcp_options() {
    return {5000, [](const std::string&) { return std::filesystem::path("unused"); }, {}};
}

}  // namespace

TEST_SUITE("app.execution_outcomes") {
    TEST_CASE("a completed or cancelled execution is a result, never a failure") {
        auto completed = ended(kernel_kind::completed);
        completed.result.notices = {"a notice"};
        completed.result.omitted_output_bytes = 3;
        auto step = app::to_api(std::move(completed));
        REQUIRE(std::holds_alternative<code_execution_result>(step));
        const auto& result = std::get<code_execution_result>(step);
        CHECK(result.text == "printed before");
        CHECK_FALSE(result.cancelled);
        CHECK(result.notices == std::vector<std::string>{"a notice"});
        CHECK(result.omitted_output_bytes == 3);

        step = app::to_api(ended(kernel_kind::cancelled));
        REQUIRE(std::holds_alternative<code_execution_result>(step));
        CHECK(std::get<code_execution_result>(step).cancelled);
        const auto answer = app::cell_result(std::get<code_execution_result>(step), mcp_options());
        CHECK_FALSE(answer.is_error);
        CHECK(mcp_text(answer) == "printed before\n\n[ipybox] cancelled");
    }

    TEST_CASE("an exception keeps its type and value, and the MCP answer is its message") {
        auto outcome = ended(kernel_kind::exception, "ValueError: bad\nTraceback ...");
        outcome.ename = "ValueError";
        outcome.evalue = "bad";
        const auto failure = failure_of(std::move(outcome));
        CHECK(failure.error_kind == failure_kind::exception);
        CHECK(failure.ename == "ValueError");
        CHECK(failure.evalue == "bad");
        CHECK(failure.output == "printed before");
        CHECK(failure.state_kept);
        const auto answer = app::cell_error(failure, mcp_options());
        CHECK(answer.is_error);
        CHECK(mcp_text(answer) == "printed before\n\nValueError: bad\nTraceback ...");
    }

    TEST_CASE("a timeout, a dead kernel and a failed start each carry their kind to every edge") {
        struct expected {
            kernel_kind ending;
            failure_kind kind;
            const char* ename;
            bool state_kept;
            const char* mcp_prefix;
        };
        for (const auto& each : {
                 expected{kernel_kind::timeout, failure_kind::timeout, "TimeoutError", true,
                          "TimeoutError: "},
                 expected{kernel_kind::timeout, failure_kind::timeout, "TimeoutError", false,
                          "TimeoutError: "},
                 expected{kernel_kind::kernel_died, failure_kind::kernel_died, "KernelDied", false,
                          "KernelDied: "},
                 expected{kernel_kind::start_failed, failure_kind::start_failed, "KernelStartError",
                          false, "KernelStartError: "},
             }) {
            CAPTURE(each.ename);
            const auto failure = failure_of(ended(each.ending, "what happened", each.state_kept));
            CHECK(failure.error_kind == each.kind);
            CHECK(failure.ename == each.ename);
            CHECK(failure.state_kept == each.state_kept);
            CHECK(failure.message == "what happened");

            const auto answer = app::cell_error(failure, mcp_options());
            CHECK(answer.is_error);
            CHECK(mcp_text(answer) ==
                  std::string("printed before\n\n") + each.mcp_prefix + "what happened");

            // The C++ API's blocking calls throw the same value.
            const code_execution_error error(failure);
            CHECK(error.error_kind() == each.kind);
            CHECK(std::string(error.what()) == "what happened");
            CHECK(error.output() == "printed before");
            CHECK(error.ename() == each.ename);
            CHECK(error.state_kept() == each.state_kept);
        }
    }

    TEST_CASE("a failed start is named after what failed, and any other exception passes through") {
        const auto start = [](auto exception) {
            return app::start_failure(std::make_exception_ptr(exception));
        };
        const auto kernel = start(kernel::kernel_start_error("no kernel"));
        CHECK(kernel.error_kind == failure_kind::start_failed);
        CHECK(kernel.ename == "KernelStartError");
        CHECK(kernel.message == "no kernel");
        CHECK_FALSE(kernel.state_kept);
        CHECK(start(kernel::interpreter_not_found("no python", {})).ename == "InterpreterNotFound");
        CHECK(start(sandbox::sandbox_unavailable("no srt")).ename == "SandboxUnavailable");
        CHECK_THROWS_AS(start(std::logic_error("a bug")), std::logic_error);
    }
}
