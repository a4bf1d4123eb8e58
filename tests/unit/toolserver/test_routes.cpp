#include "fakes.hpp"
#include "ipybox/toolserver/routes.hpp"

#include <doctest/doctest.h>

using namespace ipybox::toolserver;
using ipybox::testing::fixed_gate;
using ipybox::testing::recording_invoker;
using ipybox::approval::verdict;
using nlohmann::json;

namespace {

http_request run_request(const std::string& body, const std::string& token = "secret") {
    return {"POST", "/run", "Bearer " + token, body};
}

json error_of(const http_response& response) { return json::parse(response.body)["error"]; }

}  // namespace

TEST_SUITE("toolserver.routes") {
    TEST_CASE("a request without the session token is refused before anything else") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        const route_context context{"secret", gate, invoker};
        for (const auto& auth : {std::string(), std::string("Bearer wrong!"),
                                 std::string("Bearer secre"), std::string("secret"),
                                 std::string("Basic secret")}) {
            const auto response = handle_request(
                {"POST", "/run", auth, R"({"server_name":"everything","tool_name":"echo"})"}, context);
            CHECK(response.status == 401);
            CHECK(error_of(response)["type"] == "unauthorized");
        }
        CHECK(gate.asked == 0);
        CHECK(invoker.calls.empty());
    }

    TEST_CASE("an approved call reaches the invoker with the kernel's arguments") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        const auto response = handle_request(
            run_request(R"({"server_name":"everything","tool_name":"echo","tool_args":{"message":"hi"}})"),
            {"secret", gate, invoker});
        CHECK(response.status == 200);
        CHECK(json::parse(response.body)["result"]["text"] == R"(ok:{"message":"hi"})");
        REQUIRE(invoker.calls.size() == 1);
        CHECK(invoker.calls[0].tool_name == "echo");
    }

    TEST_CASE("a rejected call never reaches the tool and says it was rejected") {
        recording_invoker invoker;
        fixed_gate gate(verdict::rejected);
        const auto response = handle_request(
            run_request(R"({"server_name":"everything","tool_name":"echo","tool_args":{}})"),
            {"secret", gate, invoker});
        CHECK(error_of(response)["type"] == "rejected");
        CHECK(error_of(response)["message"] == "Approval request for everything.echo rejected");
        CHECK(invoker.calls.empty());
    }

    TEST_CASE("an approval that times out is reported as expired") {
        recording_invoker invoker;
        fixed_gate gate(verdict::timed_out);
        const auto response = handle_request(
            run_request(R"({"server_name":"everything","tool_name":"echo"})"), {"secret", gate, invoker});
        CHECK(error_of(response)["type"] == "timeout");
        CHECK(invoker.calls.empty());
    }

    TEST_CASE("kernel code can only name servers the host registered") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        const auto response = handle_request(
            run_request(R"({"server_name":"evil","tool_name":"x","server_params":{"command":"sh"}})"),
            {"secret", gate, invoker});
        CHECK(error_of(response)["type"] == "unknown_server");
        CHECK(gate.asked == 0);
        CHECK(invoker.calls.empty());
    }

    TEST_CASE("server parameters in the request are ignored, never passed on") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        handle_request(run_request(R"({"server_name":"everything","tool_name":"echo","tool_args":{},
                                       "server_params":{"command":"rm","args":["-rf","/"]}})"),
                       {"secret", gate, invoker});
        REQUIRE(invoker.calls.size() == 1);
        CHECK(invoker.calls[0].arguments == json::object());
    }

    TEST_CASE("malformed bodies are bad requests with a reason") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        const route_context context{"secret", gate, invoker};
        CHECK(handle_request(run_request("{nope"), context).status == 400);
        CHECK(handle_request(run_request("[]"), context).status == 400);
        CHECK(handle_request(run_request(R"({"server_name":1,"tool_name":"x"})"), context).status == 400);
        CHECK(handle_request(run_request(R"({"server_name":"everything","tool_name":"x","tool_args":[1]})"),
                             context).status == 400);
        CHECK(invoker.calls.empty());
    }

    TEST_CASE("tool failures and invoker exceptions come back as typed errors") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        const route_context context{"secret", gate, invoker};
        CHECK(error_of(handle_request(run_request(R"({"server_name":"everything","tool_name":"fail"})"),
                                      context))["type"] == "tool_error");
        const auto crashed = error_of(
            handle_request(run_request(R"({"server_name":"everything","tool_name":"explode"})"), context));
        CHECK(crashed["type"] == "server_error");
        CHECK(crashed["message"] == "the MCP server died");
    }

    TEST_CASE("unknown paths and methods are refused") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        const route_context context{"secret", gate, invoker};
        CHECK(handle_request({"GET", "/run", "Bearer secret", ""}, context).status == 405);
        CHECK(handle_request({"POST", "/reset", "Bearer secret", ""}, context).status == 404);
        CHECK(handle_request({"GET", "/status", "Bearer secret", ""}, context).status == 200);
    }
}
