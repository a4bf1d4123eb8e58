// Our client session over the HTTP transports against the real server-everything (npm), in its
// `streamableHttp` and `sse` modes, on 127.0.0.1.
#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/use_future.hpp>
#include <thread>

#include "everything_server.hpp"
#include "ipybox/mcp/http/sse_transport.hpp"
#include "ipybox/mcp/http/streamable_http_transport.hpp"
#include "ipybox/mcp/session/protocol_version.hpp"

using namespace ipybox::testing;
using namespace std::chrono_literals;
namespace http = ipybox::mcp::http;
namespace session = ipybox::mcp::session;
using json = nlohmann::json;

namespace {

const std::string modes[] = {"streamableHttp", "sse"};

void check_tools(http_client& c) {
    const auto tools = c.await<std::vector<session::tool_descriptor>>(
        [&](auto handler) { c.client->list_tools(handler); });
    REQUIRE_MESSAGE(!tools.error(), tools.error_message());
    std::map<std::string, session::tool_descriptor> by_name;
    for (const auto& tool : tools.value()) by_name[tool.name] = tool;
    for (const char* name : {"echo", "get-sum", "get-structured-content", "get-tiny-image",
                             "trigger-long-running-operation"}) {
        CHECK_MESSAGE(by_name.count(name) == 1, name);
    }
    CHECK(by_name["get-structured-content"].output_schema.is_object());
}

}  // namespace

TEST_SUITE("mcp.integration.http") {
    TEST_CASE("streamable HTTP: initialize negotiates 2025-11-25 and gets a session id") {
        everything_server server("streamableHttp");
        http_client c(json{{"url", server.url()}});
        const auto description = c.connect();
        CHECK(description.protocol_version == "2025-11-25");
        CHECK(description.server_info.name == "mcp-servers/everything");
        CHECK(description.capabilities.contains("tools"));
        const auto transport =
            std::dynamic_pointer_cast<http::streamable_http_transport>(c.channel);
        REQUIRE(transport != nullptr);
        REQUIRE(transport->session_id().has_value());
        CHECK(transport->session_id()->size() == 36);  // a UUID
    }

    TEST_CASE("legacy SSE: initialize through the endpoint the server announced") {
        everything_server server("sse");
        http_client c(json{{"url", server.url()}});
        const auto description = c.connect();
        CHECK(description.server_info.name == "mcp-servers/everything");
        CHECK(session::is_supported_protocol_version(description.protocol_version));
        const auto transport = std::dynamic_pointer_cast<http::sse_transport>(c.channel);
        REQUIRE(transport != nullptr);
        const auto endpoint = transport->endpoint();
        REQUIRE(endpoint.has_value());
        CHECK(endpoint->starts_with("http://127.0.0.1:" + std::to_string(server.port()) +
                                    "/message?sessionId="));
    }

    TEST_CASE("both transports: list_tools, get-sum, echo, structured content, image") {
        for (const auto& mode : modes) {
            CAPTURE(mode);
            everything_server server(mode);
            http_client c(json{{"url", server.url()}});
            c.connect();
            check_tools(c);
            CHECK(first_text(c.call("get-sum", {{"a", 2}, {"b", 3}})) ==
                  "The sum of 2 and 3 is 5.");
            CHECK(first_text(c.call("echo", {{"message", "hello"}})) == "Echo: hello");

            const auto weather = c.call("get-structured-content", {{"location", "Chicago"}});
            REQUIRE(weather.structured.is_object());
            CHECK(weather.structured["temperature"].is_number());
            CHECK(weather.structured["conditions"].is_string());

            const auto image = c.call("get-tiny-image", json::object());
            const auto block = std::find_if(image.content.begin(), image.content.end(),
                                            [](const json& b) { return b["type"] == "image"; });
            REQUIRE(block != image.content.end());
            CHECK((*block)["mimeType"] == "image/png");
            CHECK((*block)["data"].get<std::string>().size() > 1000);
        }
    }

    TEST_CASE("both transports: progress notifications arrive before the result") {
        for (const auto& mode : modes) {
            CAPTURE(mode);
            everything_server server(mode);
            http_client c(json{{"url", server.url()}});
            c.connect();
            recorder<ipybox::mcp::jsonrpc::progress_update> updates;
            session::call_options options;
            options.on_progress = [updates](const auto& update) { updates.add(update); };
            const auto result =
                c.call("trigger-long-running-operation", {{"duration", 1}, {"steps", 4}}, options);
            CHECK(first_text(result).find("completed") != std::string::npos);
            run_until(
                c.io, [&] { return updates.size() == 4; }, 500ms);
            const auto seen = updates.items();
            REQUIRE(seen.size() >= 3);  // SSE: the last one may race the result
            CHECK(seen[0].progress == 1);
            CHECK(seen[0].total == 4);
            if (mode == "streamableHttp") CHECK(seen.size() == 4);
        }
    }

    TEST_CASE("both transports: concurrent calls all complete") {
        for (const auto& mode : modes) {
            CAPTURE(mode);
            everything_server server(mode);
            http_client c(json{{"url", server.url()}});
            c.connect();
            std::vector<outcome<session::call_tool_result>> results(12);
            for (std::size_t i = 0; i < results.size(); ++i) {
                c.client->call_tool("echo", {{"message", "m" + std::to_string(i)}}, {},
                                    results[i].handler());
            }
            REQUIRE(run_until(
                c.io,
                [&] {
                    return std::all_of(results.begin(), results.end(),
                                       [](const auto& r) { return r.done(); });
                },
                20s));
            for (std::size_t i = 0; i < results.size(); ++i) {
                REQUIRE_MESSAGE(!results[i].error(), results[i].error_message());
                CHECK(first_text(results[i].value()) == "Echo: m" + std::to_string(i));
            }
        }
    }

    TEST_CASE("both transports: a server killed mid-call fails the call promptly") {
        for (const auto& mode : modes) {
            CAPTURE(mode);
            everything_server server(mode);
            recorder<ipybox::mcp::transport::close_info> closed;
            session::client_options options;
            options.on_closed = [closed](const auto& info) { closed.add(info); };
            http_client c(json{{"url", server.url()}}, options);
            c.connect();
            outcome<session::call_tool_result> pending;
            c.client->call_tool("trigger-long-running-operation", {{"duration", 30}, {"steps", 30}},
                                {}, pending.handler());
            run_for(c.io, 500ms);
            REQUIRE_FALSE(pending.done());
            server.kill_now();
            const auto killed = std::chrono::steady_clock::now();
            REQUIRE(run_until(
                c.io, [&] { return pending.done(); }, 10s));
            const auto took = std::chrono::steady_clock::now() - killed;
            CHECK(took < 3s);
            CHECK_MESSAGE(pending.failed_with<ipybox::mcp::jsonrpc::connection_closed>(),
                          pending.error_message());
            MESSAGE(mode << ": failed after "
                         << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
                         << " ms: " << pending.error_message());
            REQUIRE(run_until(
                c.io, [&] { return closed.size() == 1; }, 2s));
            CHECK_FALSE(closed.items()[0].requested);
        }
    }

    TEST_CASE("streamable HTTP: close sends DELETE and the server ends the session") {
        everything_server server("streamableHttp");
        recorder<ipybox::mcp::transport::close_info> closed;
        session::client_options options;
        options.on_closed = [closed](const auto& info) { closed.add(info); };
        http_client c(json{{"url", server.url()}, {"type", "streamable_http"}}, options);
        c.connect();
        const auto id = std::dynamic_pointer_cast<http::streamable_http_transport>(c.channel)
                            ->session_id()
                            .value_or("");
        REQUIRE_FALSE(id.empty());
        CHECK(first_text(c.call("echo", {{"message", "bye"}})) == "Echo: bye");
        c.client->close();
        REQUIRE(run_until(
            c.io, [&] { return closed.size() == 1; }, 10s));
        CHECK(closed.items()[0].requested);
        const auto deadline = std::chrono::steady_clock::now() + 5s;
        const std::string expected = "Received session termination request for session " + id;
        while (server.log().find(expected) == std::string::npos &&
               std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(20ms);
        }
        CHECK_MESSAGE(server.log().find(expected) != std::string::npos, server.log());
    }

    TEST_CASE("both transports: echo latency") {
        for (const auto& mode : modes) {
            CAPTURE(mode);
            everything_server server(mode);
            const auto connect_started = std::chrono::steady_clock::now();
            http_client c(json{{"url", server.url()}});
            c.connect();
            const auto connect_took = std::chrono::steady_clock::now() - connect_started;
            // The io_context runs on its own thread, as in the product: the test's polling loop
            // would otherwise quantise every call to its 5 ms slices.
            auto work = boost::asio::make_work_guard(c.io);
            std::thread runner([&] { c.io.run(); });
            auto echo = [&](const std::string& text) {
                return c.client->call_tool("echo", {{"message", text}}, {},
                                           boost::asio::use_future);
            };
            for (int i = 0; i < 20; ++i) echo("warm").get();  // lets node's JIT settle
            std::vector<double> micros;
            for (int i = 0; i < 200; ++i) {
                const auto started = std::chrono::steady_clock::now();
                const auto result = echo("x").get();
                micros.push_back(std::chrono::duration<double, std::micro>(
                                     std::chrono::steady_clock::now() - started)
                                     .count());
                CHECK(first_text(result) == "Echo: x");
            }
            work.reset();
            c.io.stop();
            runner.join();
            std::sort(micros.begin(), micros.end());
            const double median = micros[micros.size() / 2] / 1000;
            const double p99 = micros[micros.size() * 99 / 100] / 1000;
            MESSAGE(
                mode << ": connect+initialize "
                     << std::chrono::duration_cast<std::chrono::milliseconds>(connect_took).count()
                     << " ms; echo median " << median << " ms, p99 " << p99 << " ms (N=200)");
            CHECK(median < 50.0);
        }
    }
}
