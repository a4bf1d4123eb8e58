// A small MCP server built from our own layers (stdio server transport + server_session), for
// integration tests that drive it over real pipes: with our client, and with the official SDK.
//
// Tools: echo {message}, add {a, b} (structured output), fail (throws), steps {count} (progress),
// slow {milliseconds} (honours cancellation). Exits 0 when stdin closes.
// clang-format off
#include <utility>  // before any Asio coroutine header: Boost 1.74's awaitable.hpp lacks it
// clang-format on
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ipybox/core/log.hpp"
#include "ipybox/mcp/session/server_session.hpp"
#include "ipybox/mcp/transport/stdio_server_transport.hpp"

namespace asio = boost::asio;
using namespace ipybox::mcp::session;

namespace {

asio::awaitable<bool> sleep_unless_cancelled(const request_context& context,
                                             std::chrono::milliseconds duration) {
    asio::steady_timer timer(co_await asio::this_coro::executor, duration);
    auto registration =
        context.cancellation().on_cancel([&timer](const std::string&) { timer.cancel(); });
    boost::system::error_code error;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, error));
    co_return !error;
}

tool_descriptor describe(std::string name, std::string description, json properties) {
    tool_descriptor tool;
    tool.name = std::move(name);
    tool.description = std::move(description);
    tool.input_schema = {{"type", "object"}, {"properties", std::move(properties)}};
    return tool;
}

void register_tools(server_session& server) {
    server.add_tool(
        describe("echo", "Echoes a message.", {{"message", {{"type", "string"}}}}),
        [](json args, request_context) -> asio::awaitable<call_tool_result> {
            co_return call_tool_result::text("Echo: " + args.value("message", std::string()));
        });

    auto add = describe("add", "Adds two integers.",
                        {{"a", {{"type", "integer"}}}, {"b", {{"type", "integer"}}}});
    add.output_schema = {{"type", "object"},
                         {"properties", {{"sum", {{"type", "integer"}}}}},
                         {"required", {"sum"}}};
    server.add_tool(add, [](json args, request_context) -> asio::awaitable<call_tool_result> {
        const auto sum = args.at("a").get<std::int64_t>() + args.at("b").get<std::int64_t>();
        auto result = call_tool_result::text(std::to_string(sum));
        result.structured = json::object();
        result.structured["sum"] = sum;
        co_return result;
    });

    server.add_tool(describe("fail", "Always fails.", json::object()),
                    [](json, request_context) -> asio::awaitable<call_tool_result> {
                        throw std::runtime_error("this tool always fails");
                        co_return call_tool_result{};
                    });

    server.add_tool(describe("steps", "Reports progress.", {{"count", {{"type", "integer"}}}}),
                    [](json args, request_context context) -> asio::awaitable<call_tool_result> {
                        const int count = args.value("count", 3);
                        for (int step = 1; step <= count; ++step) {
                            context.report_progress(step, count);
                            co_await sleep_unless_cancelled(context, std::chrono::milliseconds(20));
                        }
                        co_return call_tool_result::text("done");
                    });

    server.add_tool(describe("slow", "Waits.", {{"milliseconds", {{"type", "integer"}}}}),
                    [](json args, request_context context) -> asio::awaitable<call_tool_result> {
                        const auto wait =
                            std::chrono::milliseconds(args.value("milliseconds", 1000));
                        const bool finished = co_await sleep_unless_cancelled(context, wait);
                        co_return call_tool_result::text(finished ? "finished" : "cancelled");
                    });
}

}  // namespace

int main() {
    ipybox::core::set_log_level("info");
    asio::io_context io;
    server_options options;
    options.server_info = {"ipybox-test-server", "1.0.0", std::nullopt};
    options.on_closed = [&io](const ipybox::mcp::transport::close_info&) { io.stop(); };
    auto server = server_session::create(
        io, ipybox::mcp::transport::make_stdio_server_transport(io), options);
    register_tools(*server);
    server->start();
    io.run();
    return 0;
}
