// POST /dependencies: a saved action's missing servers and packages, asked about as one typed
// request and added exactly as approved; hostile shapes refused before anyone is asked.
#include <doctest/doctest.h>

#include "fakes.hpp"
#include "ipybox/toolserver/routes.hpp"

using namespace ipybox::toolserver;
using ipybox::approval::verdict;
using ipybox::testing::error_of;
using ipybox::testing::fixed_gate;
using ipybox::testing::recording_adder;
using ipybox::testing::recording_invoker;
using ipybox::testing::respond_now;
using nlohmann::json;

namespace {

json needs_body() {
    return {{"action", "gentools.files.largest"},
            {"servers", {{"everything", {{"command", "node"}, {"args", {"server.js"}}}}}},
            {"packages", {{{"spec", "requests==2.31.0"}, {"for_user", true}}}}};
}

http_response post(const json& body, const route_context& context) {
    return respond_now({"POST", "/dependencies", "Bearer secret", body.dump()}, context);
}

}  // namespace

TEST_SUITE("toolserver.dependencies") {
    TEST_CASE("an approved request is added exactly as the gate saw it") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        recording_adder adder;
        const auto response = post(needs_body(), {"secret", gate, invoker, false, nullptr, &adder});
        CHECK(response.status == 200);
        CHECK(json::parse(response.body)["report"] == "registered MCP server everything\n");
        const auto& asked = std::get<ipybox::approval::add_dependencies>(gate.last);
        CHECK(asked.action == "gentools.files.largest");
        CHECK(asked.servers.at("everything")["command"] == "node");
        REQUIRE(asked.packages.size() == 1);
        CHECK(asked.packages[0].spec == "requests==2.31.0");
        CHECK(asked.packages[0].for_user);
        REQUIRE(adder.added.size() == 1);
        CHECK(adder.added[0].servers == asked.servers);
        CHECK(invoker.calls.empty());
    }

    TEST_CASE("a rejected request adds nothing, and a failed one reaches the kernel as an error") {
        recording_invoker invoker;
        recording_adder adder;
        fixed_gate no(verdict::rejected);
        const route_context refusing{"secret", no, invoker, false, nullptr, &adder};
        CHECK(error_of(post(needs_body(), refusing))["message"] ==
              "Approval request for the dependencies of gentools.files.largest rejected");
        CHECK(adder.added.empty());
        fixed_gate yes(verdict::approved);
        adder.answer = {false, "could not install \"requests\": no index\n"};
        const auto failed = post(needs_body(), {"secret", yes, invoker, false, nullptr, &adder});
        CHECK(error_of(failed)["type"] == "server_error");
        CHECK(error_of(failed)["message"] == "could not install \"requests\": no index\n");
    }

    TEST_CASE(
        "pip options, reserved or hostile server names and empty requests are refused unasked") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        recording_adder adder;
        const route_context context{"secret", gate, invoker, false, nullptr, &adder};
        std::vector<json> bodies;
        for (const auto* spec : {"--index-url=http://127.0.0.1:9/", "-r /etc/passwd", "",
                                 "requests\n--extra-index-url x"}) {
            auto body = needs_body();
            body["packages"][0]["spec"] = spec;
            bodies.push_back(body);
        }
        auto long_spec = needs_body();
        long_spec["packages"][0]["spec"] = std::string(max_package_spec_bytes + 1, 'a');
        bodies.push_back(long_spec);
        for (const auto* name : {"ipybox", "../x", "class", "a b", "_hidden", ""}) {
            auto body = needs_body();
            body["servers"] = {{name, {{"command", "true"}}}};
            bodies.push_back(body);
        }
        auto not_object = needs_body();
        not_object["servers"]["everything"] = "node server.js";
        bodies.push_back(not_object);
        bodies.push_back(
            {{"action", "x"}, {"servers", json::object()}, {"packages", json::array()}});
        bodies.push_back({{"servers", json::object()}});  // no action
        json many = needs_body();
        for (int i = 0; i < 40; ++i)
            many["packages"].push_back({{"spec", "p" + std::to_string(i)}});
        bodies.push_back(many);
        for (const auto& body : bodies) {
            CAPTURE(body.dump().substr(0, 200));
            const auto response = post(body, context);
            CHECK(response.status == 400);
            CHECK(error_of(response)["type"] == "bad_request");
        }
        CHECK(gate.asked == 0);
        CHECK(adder.added.empty());
        // The control: the same request, well formed, is asked about and added.
        CHECK(post(needs_body(), context).status == 200);
        CHECK(gate.asked == 1);
    }

    TEST_CASE("what the adder refuses (a registration it would replace) is refused unasked") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        recording_adder adder;
        adder.refused = "this project already has MCP servers registered as everything";
        const auto response = post(needs_body(), {"secret", gate, invoker, false, nullptr, &adder});
        CHECK(response.status == 409);
        CHECK(error_of(response)["message"] == adder.refused);
        CHECK(gate.asked == 0);
        CHECK(adder.added.empty());
        adder.refused.clear();  // the control: the same request is asked about and added
        CHECK(post(needs_body(), {"secret", gate, invoker, false, nullptr, &adder}).status == 200);
        CHECK(adder.added.size() == 1);
    }

    TEST_CASE("the host's fields of the question come from the adder, never from the kernel") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        recording_adder adder;
        auto body = needs_body();
        body["project"] = "/kernel/says";  // ignored: only the host knows its project
        body["outside_project"] = json::object();
        REQUIRE(post(body, {"secret", gate, invoker, false, nullptr, &adder}).status == 200);
        const auto& asked = std::get<ipybox::approval::add_dependencies>(gate.last);
        CHECK(asked.project == "/host/project");
        CHECK(asked.outside_project.at("everything") == std::vector<std::string>{"/other"});
        CHECK(adder.added.at(0).project == "/host/project");
    }

    TEST_CASE("without an adder the endpoint is off and names the calls to use instead") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        const auto response = post(needs_body(), {"secret", gate, invoker});
        CHECK(response.status == 404);
        CHECK(error_of(response)["message"].get<std::string>().find("register_mcp_server") !=
              std::string::npos);
        CHECK(gate.asked == 0);
    }
}
