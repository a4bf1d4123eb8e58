#include <doctest/doctest.h>

#include "ipybox/mcp/jsonrpc/errors.hpp"
#include "sdk_protocol.hpp"

namespace {

using nlohmann::json;
using namespace ipybox;
namespace sdk = ipybox::app::sdk;

int refusal_code(const json& params) {
    try {
        sdk::parse_execute(params);
    } catch (const mcp::jsonrpc::jsonrpc_error& e) {
        return e.code();
    }
    return 0;
}

}  // namespace

TEST_CASE("execute parameters: the timeout is seconds, null or absent means none") {
    auto parsed = sdk::parse_execute(json{{"execution", 7}, {"code", "x"}, {"timeout", 0.25}});
    CHECK(parsed.execution == 7);
    CHECK(parsed.code == "x");
    REQUIRE(parsed.timeout);
    CHECK(parsed.timeout->count() == 250);
    CHECK_FALSE(sdk::parse_execute(json{{"execution", 1}, {"code", ""}, {"timeout", nullptr}})
                    .timeout.has_value());
    CHECK_FALSE(sdk::parse_execute(json{{"execution", 1}, {"code", ""}}).timeout.has_value());
}

TEST_CASE("execute parameters: a missing field or a wrong type is refused as invalid params") {
    constexpr int invalid = mcp::jsonrpc::error_code::invalid_params;
    CHECK(refusal_code(json{{"code", "x"}}) == invalid);
    CHECK(refusal_code(json{{"execution", "1"}, {"code", "x"}}) == invalid);
    CHECK(refusal_code(json{{"execution", 1}, {"code", 3}}) == invalid);
    CHECK(refusal_code(json{{"execution", 1}, {"code", "x"}, {"timeout", "5"}}) == invalid);
    CHECK(refusal_code(json{{"execution", 1}, {"code", "x"}, {"timeout", -1}}) == invalid);
    CHECK(refusal_code(json{{"execution", 1}, {"code", "x"}, {"timeout", 1e300}}) == invalid);
    CHECK(refusal_code(json::array()) == invalid);
}

TEST_CASE("decide parameters: accept must be a boolean, the reason is optional") {
    const auto parsed =
        sdk::parse_decide(json{{"approval", 3}, {"accept", false}, {"reason", "no"}});
    CHECK(parsed.approval == 3);
    CHECK_FALSE(parsed.accept);
    CHECK(parsed.reason == "no");
    CHECK(sdk::parse_decide(json{{"approval", 3}, {"accept", true}}).reason.empty());
    CHECK_THROWS_AS(sdk::parse_decide(json{{"approval", 3}, {"accept", 1}}),
                    mcp::jsonrpc::jsonrpc_error);
}

TEST_CASE("register parameters: the server's parameters must be an object") {
    CHECK(sdk::parse_register(json{{"server_name", "s"}, {"server_params", {{"command", "x"}}}})
              .server_name == "s");
    CHECK_THROWS_AS(sdk::parse_register(json{{"server_name", "s"}, {"server_params", "x"}}),
                    mcp::jsonrpc::jsonrpc_error);
}

TEST_CASE("a tool call is named by its server, its MCP name and its arguments") {
    approval::tool_call call{"echo", "echo-text", json{{"s", "hi"}}, "echo_text"};
    const auto note = sdk::approval_notification(4, 9, call, "question");
    CHECK(note["execution"] == 4);
    CHECK(note["approval"] == 9);
    CHECK(note["kind"] == "tool_call");
    CHECK(note["server_name"] == "echo");
    CHECK(note["tool_name"] == "echo-text");
    CHECK(note["tool_args"] == json{{"s", "hi"}});
    CHECK(note["python_name"] == "echo_text");
    CHECK(note["needs_a_person"] == false);
    CHECK(note["question"] == "question");
}

TEST_CASE("shell commands are ipybox.shell and ipybox.shell_magic with the command as cmd") {
    approval::shell_command line{approval::shell_command::form::line, "echo hi", ""};
    auto note = sdk::approval_notification(1, 1, line, "");
    CHECK(note["kind"] == "shell_command");
    CHECK(note["server_name"] == "ipybox");
    CHECK(note["tool_name"] == "shell");
    CHECK(note["tool_args"] == json{{"cmd", "echo hi"}});
    approval::shell_command cell{approval::shell_command::form::cell_magic, "echo a\n", "bash"};
    note = sdk::approval_notification(1, 2, cell, "");
    CHECK(note["tool_name"] == "shell_magic");
    CHECK(note["tool_args"] == json{{"cmd", "echo a\n"}});
    CHECK(note["interpreter"] == "bash");
}

TEST_CASE("a save into the user library needs a person") {
    approval::save_action save{"files", "largest", {{"api.py", "x = 1\n"}}, std::nullopt, false};
    const auto note = sdk::approval_notification(1, 1, save, "");
    CHECK(note["tool_name"] == "save_gentool");
    CHECK(note["needs_a_person"] == true);
    CHECK(note["tool_args"]["files"]["api.py"] == "x = 1\n");
}

TEST_CASE("a failure keeps its kind, its exception and whether the state was kept") {
    code_execution_failure failure{code_execution_failure::kind::kernel_died,
                                   "the kernel died",
                                   "printed",
                                   "KernelDied",
                                   "",
                                   false};
    const auto error = sdk::failure_error(failure);
    CHECK(error.code == sdk::execution_failed_code);
    CHECK(error.message == "the kernel died");
    CHECK(error.data["kind"] == "kernel_died");
    CHECK(error.data["ename"] == "KernelDied");
    CHECK(error.data["output"] == "printed");
    CHECK(error.data["state_kept"] == false);
}

TEST_CASE("a result lists its images and says whether it was cancelled") {
    code_execution_result result;
    result.text = "out\n";
    result.images = {"/tmp/a.png"};
    result.cancelled = true;
    const auto written = sdk::result_json(result);
    CHECK(written["text"] == "out\n");
    CHECK(written["images"] == json::array({"/tmp/a.png"}));
    CHECK(written["cancelled"] == true);
    code_execution_chunk chunk{"stderr", "warn", std::nullopt};
    const auto note = sdk::chunk_notification(2, chunk);
    CHECK(note["stream"] == "stderr");
    CHECK(note["image"].is_null());
}
