#include <doctest/doctest.h>

#include <tuple>

#include "fakes.hpp"
#include "ipybox/toolserver/routes.hpp"

using namespace ipybox::toolserver;
using ipybox::approval::verdict;
using ipybox::testing::error_of;
using ipybox::testing::fixed_gate;
using ipybox::testing::recording_invoker;
using ipybox::testing::respond_now;
using nlohmann::json;

namespace {

http_request run_request(const std::string& body, const std::string& token = "secret") {
    return {"POST", "/run", "Bearer " + token, body};
}

}  // namespace

TEST_SUITE("toolserver.routes") {
    TEST_CASE("a request without the session token is refused before anything else") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        const route_context context{"secret", gate, invoker};
        for (const auto& auth :
             {std::string(), std::string("Bearer wrong!"), std::string("Bearer secre"),
              std::string("secret"), std::string("Basic secret")}) {
            const auto response = respond_now(
                {"POST", "/run", auth, R"({"server_name":"everything","tool_name":"echo"})"},
                context);
            CHECK(response.status == 401);
            CHECK(error_of(response)["type"] == "unauthorized");
        }
        CHECK(gate.asked == 0);
        CHECK(invoker.calls.empty());
    }

    TEST_CASE("an approved call reaches the invoker with the kernel's arguments") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        const auto response = respond_now(
            run_request(
                R"({"server_name":"everything","tool_name":"echo","tool_args":{"message":"hi"}})"),
            {"secret", gate, invoker});
        CHECK(response.status == 200);
        CHECK(json::parse(response.body)["result"]["text"] == R"(ok:{"message":"hi"})");
        REQUIRE(invoker.calls.size() == 1);
        CHECK(invoker.calls[0].tool_name == "echo");
    }

    TEST_CASE("a rejected call never reaches the tool and says it was rejected") {
        recording_invoker invoker;
        fixed_gate gate(verdict::rejected);
        const auto response = respond_now(
            run_request(R"({"server_name":"everything","tool_name":"echo","tool_args":{}})"),
            {"secret", gate, invoker});
        CHECK(error_of(response)["type"] == "rejected");
        CHECK(error_of(response)["message"] == "Approval request for everything.echo rejected");
        CHECK(invoker.calls.empty());
    }

    TEST_CASE("names from the kernel reach the error escaped, never as a line of their own") {
        // Found by an outside attack: a tool named with a line break and escape sequences put
        // "server: trusted rejected" on a line of its own in ipybox run's error summary.
        recording_invoker invoker;
        fixed_gate gate(verdict::rejected);
        const json body = {{"server_name", "everything"},
                           {"tool_name", "safe\x1b[2K\r\nserver: trusted"},
                           {"tool_args", json::object()}};
        const auto response = respond_now(run_request(body.dump()), {"secret", gate, invoker});
        const auto message = error_of(response)["message"].get<std::string>();
        CHECK(message ==
              "Approval request for everything.safe\\x1b[2K\\r\\nserver: trusted rejected");
        CHECK(message.find_first_of("\r\n\x1b") == std::string::npos);
        // An unknown server's name is quoted the same way.
        const json unknown = {{"server_name", "nope\n[ok]"}, {"tool_name", "x"}};
        const auto refused = respond_now(run_request(unknown.dump()), {"secret", gate, invoker});
        CHECK(error_of(refused)["message"].get<std::string>().find('\n') == std::string::npos);
    }

    TEST_CASE("an approval that times out is reported as expired") {
        recording_invoker invoker;
        fixed_gate gate(verdict::timed_out);
        const auto response =
            respond_now(run_request(R"({"server_name":"everything","tool_name":"echo"})"),
                        {"secret", gate, invoker});
        CHECK(error_of(response)["type"] == "timeout");
        CHECK(invoker.calls.empty());
    }

    TEST_CASE("kernel code can only name servers the host registered") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        const auto response = respond_now(
            run_request(
                R"({"server_name":"evil","tool_name":"x","server_params":{"command":"sh"}})"),
            {"secret", gate, invoker});
        CHECK(error_of(response)["type"] == "unknown_server");
        CHECK(gate.asked == 0);
        CHECK(invoker.calls.empty());
    }

    TEST_CASE("server parameters in the request are ignored, never passed on") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        respond_now(run_request(R"({"server_name":"everything","tool_name":"echo","tool_args":{},
                                       "server_params":{"command":"rm","args":["-rf","/"]}})"),
                    {"secret", gate, invoker});
        REQUIRE(invoker.calls.size() == 1);
        CHECK(invoker.calls[0].arguments == json::object());
    }

    TEST_CASE("malformed bodies are bad requests with a reason") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        const route_context context{"secret", gate, invoker};
        CHECK(respond_now(run_request("{nope"), context).status == 400);
        CHECK(respond_now(run_request("[]"), context).status == 400);
        CHECK(respond_now(run_request(R"({"server_name":1,"tool_name":"x"})"), context).status ==
              400);
        CHECK(respond_now(
                  run_request(R"({"server_name":"everything","tool_name":"x","tool_args":[1]})"),
                  context)
                  .status == 400);
        CHECK(invoker.calls.empty());
    }

    TEST_CASE("tool failures and invoker exceptions come back as typed errors") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        const route_context context{"secret", gate, invoker};
        CHECK(
            error_of(respond_now(run_request(R"({"server_name":"everything","tool_name":"fail"})"),
                                 context))["type"] == "tool_error");
        const auto crashed = error_of(respond_now(
            run_request(R"({"server_name":"everything","tool_name":"explode"})"), context));
        CHECK(crashed["type"] == "server_error");
        CHECK(crashed["message"] == "the MCP server died");
    }

    TEST_CASE("unknown paths and methods are refused") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        const route_context context{"secret", gate, invoker};
        CHECK(respond_now({"GET", "/run", "Bearer secret", ""}, context).status == 405);
        CHECK(respond_now({"POST", "/reset", "Bearer secret", ""}, context).status == 404);
        CHECK(respond_now({"GET", "/status", "Bearer secret", ""}, context).status == 200);
    }

    TEST_CASE("POST /shell asks the gate about a shell command and answers approved") {
        recording_invoker invoker;
        fixed_gate shell_gate(verdict::approved);
        const route_context context{"secret", shell_gate, invoker, true};
        const auto response = respond_now(
            {"POST", "/shell", "Bearer secret",
             R"({"tool_name":"shell_magic","tool_args":{"cmd":"echo hi\n","interpreter":"bash"}})"},
            context);
        CHECK(response.status == 200);
        CHECK(json::parse(response.body) == json{{"approved", true}});
        CHECK(shell_gate.asked == 1);
        const auto& asked = std::get<ipybox::approval::shell_command>(shell_gate.last);
        CHECK(asked.kind == ipybox::approval::shell_command::form::cell_magic);
        CHECK(asked.command == "echo hi\n");
        CHECK(asked.interpreter == "bash");
        CHECK(invoker.calls.empty());  // nothing runs on the host: the kernel runs the command
    }

    TEST_CASE("POST /shell: a rejection or expiry is a typed error naming the shell command") {
        recording_invoker invoker;
        for (const auto& [v, type, word] : {std::tuple{verdict::rejected, "rejected", "rejected"},
                                            std::tuple{verdict::timed_out, "timeout", "expired"}}) {
            fixed_gate shell_gate(v);
            const auto response =
                respond_now({"POST", "/shell", "Bearer secret",
                             R"({"tool_name":"shell","tool_args":{"cmd":"rm -rf /"}})"},
                            {"secret", shell_gate, invoker, true});
            CHECK(error_of(response)["type"] == type);
            CHECK(error_of(response)["message"] ==
                  std::string("Approval request for the shell command ") + word);
        }
    }

    TEST_CASE("POST /shell: off unless the session turned it on, token first, bad bodies refused") {
        recording_invoker invoker;
        fixed_gate shell_gate(verdict::approved);
        const std::string good = R"({"tool_name":"shell","tool_args":{"cmd":"ls"}})";

        const auto off = respond_now({"POST", "/shell", "Bearer secret", good},
                                     {"secret", shell_gate, invoker, false});
        CHECK(off.status == 404);
        CHECK(error_of(off)["message"] ==
              "shell-command approval is not enabled in this ipybox session");

        const route_context context{"secret", shell_gate, invoker, true};
        CHECK(respond_now({"POST", "/shell", "Bearer nope", good}, context).status == 401);
        CHECK(respond_now({"GET", "/shell", "Bearer secret", good}, context).status == 405);
        for (const std::string body :
             {"not json", "[]", R"({"tool_name":"run","tool_args":{"cmd":"ls"}})",
              R"({"tool_args":{"cmd":"ls"}})", R"({"tool_name":"shell"})",
              R"({"tool_name":"shell","tool_args":{"cmd":1}})",
              R"({"tool_name":"shell","tool_args":{"command":"ls"}})",
              R"({"tool_name":"shell","tool_args":{"cmd":"ls","interpreter":{"x":1}}})",
              // A field the question would not show, or one of another form.
              R"({"tool_name":"shell","tool_args":{"cmd":"ls","env":"LD_PRELOAD=x"}})",
              R"({"tool_name":"shell","tool_args":{"cmd":"ls","interpreter":"bash"}})"}) {
            CAPTURE(body);
            const auto response = respond_now({"POST", "/shell", "Bearer secret", body}, context);
            CHECK(response.status == 400);
            CHECK(error_of(response)["type"] == "bad_request");
        }
        CHECK(shell_gate.asked == 0);
    }
}
