// client_session ⇄ server_session over the in-memory pair.
#include "session_fixture.hpp"

using namespace ipybox::testing;
using namespace std::chrono_literals;
using ipybox::mcp::jsonrpc::connection_closed;
using ipybox::mcp::jsonrpc::remote_error;
using ipybox::mcp::jsonrpc::request_cancelled;
using ipybox::mcp::jsonrpc::request_timeout;
using ipybox::mcp::session::call_options;
using ipybox::mcp::session::capability_not_declared;
using ipybox::mcp::session::client_options;
using ipybox::mcp::session::server_options;
namespace asio = boost::asio;

namespace {

void add_arithmetic(ipybox::mcp::session::server_session& server) {
    auto add = tool_named("add", "Adds two integers.");
    add.input_schema = {
        {"type", "object"},
        {"properties", {{"a", {{"type", "integer"}}}, {"b", {{"type", "integer"}}}}}};
    add.output_schema = {{"type", "object"}, {"properties", {{"sum", {{"type", "integer"}}}}}};
    add.annotations = {{"readOnlyHint", true}};
    server.add_tool(add, [](json args, request_context) -> asio::awaitable<call_tool_result> {
        const int sum = args.at("a").get<int>() + args.at("b").get<int>();
        auto result = call_tool_result::text(std::to_string(sum));
        result.structured = {{"sum", sum}};
        co_return result;
    });
}

}  // namespace

TEST_SUITE("mcp.session") {
    TEST_CASE("client and server agree on the latest protocol version and learn about each other") {
        server_options so;
        so.server_info = {"test-server", "1.2.3", std::nullopt};
        so.instructions = "Use the tools.";
        client_options co;
        co.capabilities = {{"elicitation", json::object()}};
        linked_sessions s(so, co);
        const auto description = s.connect();
        CHECK(description.protocol_version == "2025-11-25");
        CHECK(description.server_info.name == "test-server");
        CHECK(description.server_info.version == "1.2.3");
        CHECK(description.instructions == "Use the tools.");
        CHECK(description.capabilities.contains("tools"));
        CHECK(s.client->is_initialized());
        CHECK(s.server->is_initialized());
        CHECK(s.server->protocol_version() == "2025-11-25");
        CHECK(s.server->client_info().name == "ipybox");
        CHECK_FALSE(s.server->client_info().version.empty());
        CHECK(s.server->client_supports("elicitation"));
        CHECK_FALSE(s.server->client_supports("sampling"));
    }

    TEST_CASE("list_tools follows nextCursor to the end, in registration order") {
        server_options so;
        so.tools_page_size = 2;
        linked_sessions s(so);
        for (const char* name : {"t1", "t2", "t3", "t4", "t5"}) {
            s.server->add_tool(tool_named(name),
                               [](json, request_context) -> asio::awaitable<call_tool_result> {
                                   co_return call_tool_result{};
                               });
        }
        add_arithmetic(*s.server);
        s.connect();
        const auto tools = s.await<std::vector<tool_descriptor>>(
            [&](auto handler) { s.client->list_tools(handler); });
        REQUIRE_FALSE(tools.error());
        std::vector<std::string> names;
        for (const auto& tool : tools.value()) names.push_back(tool.name);
        CHECK(names == std::vector<std::string>{"t1", "t2", "t3", "t4", "t5", "add"});
        const auto& add = tools.value().back();
        CHECK(add.description == "Adds two integers.");
        CHECK(add.output_schema["properties"].contains("sum"));
        CHECK(add.annotations["readOnlyHint"] == true);
        CHECK(add.raw["name"] == "add");
    }

    TEST_CASE("call_tool returns content and structured content") {
        linked_sessions s;
        add_arithmetic(*s.server);
        s.connect();
        const auto result = s.await<call_tool_result>([&](auto handler) {
            s.client->call_tool("add", {{"a", 2}, {"b", 3}}, {}, handler);
        });
        REQUIRE_FALSE(result.error());
        CHECK(result.value().content == json::array({{{"type", "text"}, {"text", "5"}}}));
        CHECK(result.value().structured == json{{"sum", 5}});
        CHECK_FALSE(result.value().is_error);
    }

    TEST_CASE("a tool that throws returns isError with the message, not a JSON-RPC error") {
        linked_sessions s;
        s.server->add_tool(tool_named("fail"),
                           [](json, request_context) -> asio::awaitable<call_tool_result> {
                               throw std::runtime_error("file not found: data.csv");
                               co_return call_tool_result{};
                           });
        s.connect();
        const auto result = s.await<call_tool_result>(
            [&](auto handler) { s.client->call_tool("fail", json::object(), {}, handler); });
        REQUIRE_FALSE(result.error());
        CHECK(result.value().is_error);
        CHECK(result.value().content[0]["text"] == "file not found: data.csv");
    }

    TEST_CASE("a tool that throws jsonrpc_error answers with that JSON-RPC error") {
        linked_sessions s;
        s.server->add_tool(
            tool_named("strict"), [](json, request_context) -> asio::awaitable<call_tool_result> {
                throw ipybox::mcp::jsonrpc::jsonrpc_error(-32602, "missing argument 'code'");
                co_return call_tool_result{};
            });
        s.connect();
        const auto result = s.await<call_tool_result>(
            [&](auto handler) { s.client->call_tool("strict", json::object(), {}, handler); });
        REQUIRE(result.failed_with<remote_error>());
        CHECK(result.error_message().find("missing argument 'code'") != std::string::npos);
    }

    TEST_CASE("an unknown tool is a -32602 error") {
        linked_sessions s;
        s.connect();
        const auto result = s.await<call_tool_result>(
            [&](auto handler) { s.client->call_tool("nope", json::object(), {}, handler); });
        try {
            std::rethrow_exception(result.error());
        } catch (const remote_error& error) {
            CHECK(error.code() == -32602);
            CHECK(std::string(error.what()).find("Unknown tool: nope") != std::string::npos);
        }
    }

    TEST_CASE("progress reported by a tool reaches the caller's on_progress") {
        linked_sessions s;
        auto wanted = std::make_shared<bool>(false);
        s.server->add_tool(
            tool_named("steps"),
            [wanted](json, request_context context) -> asio::awaitable<call_tool_result> {
                *wanted = context.wants_progress();
                for (int step = 1; step <= 3; ++step) {
                    context.report_progress(step, 3, "step " + std::to_string(step));
                    co_await sleep_unless_cancelled(context, 5ms);
                }
                co_return call_tool_result::text("done");
            });
        s.connect();
        recorder<ipybox::mcp::jsonrpc::progress_update> updates;
        call_options options;
        options.on_progress = [updates](const auto& update) { updates.add(update); };
        const auto result = s.await<call_tool_result>(
            [&](auto handler) { s.client->call_tool("steps", json::object(), options, handler); });
        REQUIRE_FALSE(result.error());
        CHECK(*wanted);
        const auto seen = updates.items();
        REQUIRE(seen.size() == 3);
        CHECK(seen[2].progress == 3);
        CHECK(seen[2].total == 3);
        CHECK(seen[2].message == "step 3");
    }

    TEST_CASE("a call that exceeds its timeout fails, and the tool sees the cancellation") {
        linked_sessions s;
        auto tool_cancelled = std::make_shared<bool>(false);
        s.server->add_tool(
            tool_named("slow"),
            [tool_cancelled](json, request_context context) -> asio::awaitable<call_tool_result> {
                const bool finished = co_await sleep_unless_cancelled(context, 10s);
                *tool_cancelled = !finished;
                co_return call_tool_result::text("too late");
            });
        s.connect();
        call_options options;
        options.timeout = 50ms;
        const auto result = s.await<call_tool_result>(
            [&](auto handler) { s.client->call_tool("slow", json::object(), options, handler); });
        CHECK(result.failed_with<request_timeout>());
        CHECK(run_until(s.io, [&] { return *tool_cancelled; }));
    }

    TEST_CASE("the caller's cancellation token cancels the running tool") {
        linked_sessions s;
        auto tool_cancelled = std::make_shared<bool>(false);
        s.server->add_tool(
            tool_named("slow"),
            [tool_cancelled](json, request_context context) -> asio::awaitable<call_tool_result> {
                *tool_cancelled = !co_await sleep_unless_cancelled(context, 10s);
                co_return call_tool_result{};
            });
        s.connect();
        ipybox::mcp::jsonrpc::cancellation_source source;
        call_options options;
        options.cancellation = source.token();
        outcome<call_tool_result> result;
        s.client->call_tool("slow", json::object(), options, result.handler());
        run_for(s.io, 20ms);
        source.cancel("the user interrupted");
        REQUIRE(run_until(s.io, [&] { return result.done() && *tool_cancelled; }));
        CHECK(result.failed_with<request_cancelled>());
    }

    TEST_CASE("ping answers with a round-trip time") {
        linked_sessions s;
        s.connect();
        const auto result =
            s.await<std::chrono::microseconds>([&](auto handler) { s.client->ping(handler); });
        REQUIRE_FALSE(result.error());
        CHECK(result.value().count() >= 0);
    }

    TEST_CASE("logging/setLevel is recorded by the server") {
        linked_sessions s;
        s.connect();
        CHECK(s.server->log_level() == "info");
        const auto result = s.await<json>([&](auto handler) {
            s.client->request("logging/setLevel", {{"level", "warning"}}, {}, handler);
        });
        REQUIRE_FALSE(result.error());
        CHECK(s.server->log_level() == "warning");
    }

    TEST_CASE("a server-to-client request reaches the client's handler") {
        client_options declares_elicitation;
        declares_elicitation.capabilities = {{"elicitation", json::object()}};
        linked_sessions s({}, declares_elicitation);
        s.client->on_request("elicitation/create", [](const auto& request, auto responder) {
            CHECK(request.params["message"] == "Allow tool x?");
            responder.reply({{"action", "accept"}, {"content", {{"approved", true}}}});
        });
        s.connect();
        const auto result = s.await<json>([&](auto handler) {
            s.server->request("elicitation/create", {{"message", "Allow tool x?"}}, {}, handler);
        });
        REQUIRE_FALSE(result.error());
        CHECK(result.value()["action"] == "accept");
    }

    TEST_CASE("a server request the client did not declare a capability for is not sent") {
        linked_sessions s;
        recorder<std::string> asked;
        s.client->on_request("elicitation/create", [&](const auto&, auto responder) {
            asked.add("elicitation/create");
            responder.reply({{"action", "decline"}});
        });
        s.connect();
        const auto result = s.await<json>([&](auto handler) {
            s.server->request("elicitation/create", {{"message", "Allow?"}}, {}, handler);
        });
        CHECK(result.failed_with<capability_not_declared>());
        CHECK(result.error_message().find("\"elicitation\"") != std::string::npos);
        const auto pinged = s.await<std::chrono::microseconds>(
            [&](auto handler) { s.client->ping(handler); });  // a round trip: nothing in flight
        REQUIRE_FALSE(pinged.error());
        CHECK(asked.items().empty());
    }

    TEST_CASE("adding a tool after initialize tells the client the list changed") {
        linked_sessions s;
        recorder<std::string> changes;
        s.client->on_notification("notifications/tools/list_changed",
                                  [changes](const auto& note) { changes.add(note.method); });
        s.connect();
        add_arithmetic(*s.server);
        REQUIRE(run_until(s.io, [&] { return changes.size() == 1; }));
        CHECK(s.server->remove_tool("add"));
        CHECK_FALSE(s.server->remove_tool("add"));
        REQUIRE(run_until(s.io, [&] { return changes.size() == 2; }));
    }

    TEST_CASE("when the server goes away a pending call fails with connection_closed") {
        linked_sessions s;
        recorder<std::string> closed;
        s.server->add_tool(tool_named("slow"),
                           [](json, request_context context) -> asio::awaitable<call_tool_result> {
                               co_await sleep_unless_cancelled(context, 10s);
                               co_return call_tool_result{};
                           });
        s.connect();
        outcome<call_tool_result> result;
        s.client->call_tool("slow", json::object(), {}, result.handler());
        run_for(s.io, 20ms);
        s.server->close();
        REQUIRE(run_until(s.io, [&] { return result.done(); }));
        CHECK(result.failed_with<connection_closed>());
        CHECK(s.client->is_closed());
    }

    TEST_CASE("a dropped client session fails its pending calls instead of living on") {
        linked_sessions s;
        s.server->add_tool(tool_named("slow"),
                           [](json, request_context context) -> asio::awaitable<call_tool_result> {
                               co_await sleep_unless_cancelled(context, 10s);
                               co_return call_tool_result{};
                           });
        s.connect();
        outcome<call_tool_result> result;
        s.client->call_tool("slow", json::object(), {}, result.handler());
        run_for(s.io, 20ms);
        const std::weak_ptr<ipybox::mcp::session::client_session> weak = s.client;
        s.client.reset();
        CHECK(weak.expired());
        REQUIRE(run_until(s.io, [&] { return result.done(); }));
        CHECK(result.failed_with<connection_closed>());
    }

    TEST_CASE("the client's on_closed hook reports the end of the connection") {
        client_options co;
        recorder<std::string> reasons;
        co.on_closed = [reasons](const auto& info) { reasons.add(info.reason); };
        linked_sessions s({}, co);
        s.connect();
        s.server->close();
        REQUIRE(run_until(s.io, [&] { return reasons.size() == 1; }));
        CHECK(reasons.items()[0].find("peer closed") != std::string::npos);
    }

    TEST_CASE("operations before initialize and a second initialize are logic errors") {
        linked_sessions s;
        CHECK_THROWS_AS(s.client->list_tools([](std::exception_ptr, auto) {}), std::logic_error);
        CHECK_THROWS_AS(
            s.client->call_tool("x", json::object(), {}, [](std::exception_ptr, auto) {}),
            std::logic_error);
        CHECK_THROWS_AS(s.client->server(), std::logic_error);
        s.connect();
        CHECK_THROWS_AS(s.client->initialize([](std::exception_ptr, auto) {}), std::logic_error);
    }

    TEST_CASE("operations compose with use_awaitable") {
        linked_sessions s;
        add_arithmetic(*s.server);
        s.server->start();
        int sum = 0;
        std::size_t tool_count = 0;
        const json arguments = {{"a", 20}, {"b", 22}};
        // GCC 12 rejects doctest macros and braced lists of string literals inside coroutines.
        asio::co_spawn(
            s.io,
            [&]() -> asio::awaitable<void> {
                co_await s.client->initialize(asio::use_awaitable);
                tool_count = (co_await s.client->list_tools(asio::use_awaitable)).size();
                const auto result =
                    co_await s.client->call_tool("add", arguments, {}, asio::use_awaitable);
                sum = result.structured["sum"].get<int>();
            },
            asio::detached);
        REQUIRE(run_until(s.io, [&] { return sum != 0; }));
        CHECK(tool_count == 1);
        CHECK(sum == 42);
    }
}
