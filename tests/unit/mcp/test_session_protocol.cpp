// Each session against a raw JSON-RPC peer, for the cases a well-behaved peer never produces.
#include <boost/asio/steady_timer.hpp>

#include "ipybox/core/random.hpp"
#include "session_fixture.hpp"

using namespace ipybox::testing;
using namespace std::chrono_literals;
using ipybox::mcp::jsonrpc::incoming_request;
using ipybox::mcp::jsonrpc::request_timeout;
using ipybox::mcp::jsonrpc::responder;
using ipybox::mcp::session::capability_not_declared;
using ipybox::mcp::session::client_options;
using ipybox::mcp::session::client_session;
using ipybox::mcp::session::protocol_error;
using ipybox::mcp::session::server_description;
using ipybox::mcp::session::server_options;
using ipybox::mcp::session::server_session;
using ipybox::mcp::session::unsupported_protocol_version;
namespace asio = boost::asio;

namespace {

const json initialize_params(const std::string& version) {
    return {{"protocolVersion", version},
            {"capabilities", json::object()},
            {"clientInfo", {{"name", "raw"}, {"version", "0"}}}};
}

// server_session on one end, a raw client on the other; the server has an echo tool.
struct raw_client_fixture : server_with_raw_client {
    raw_client_fixture() {
        server->add_tool(tool_named("echo"),
                         [](json args, request_context) -> asio::awaitable<call_tool_result> {
                             co_return call_tool_result::text(args.value("message", ""));
                         });
    }
};

// client_session on one end, a raw server on the other.
struct raw_server_fixture {
    boost::asio::io_context io;
    std::shared_ptr<client_session> client;
    std::unique_ptr<raw_peer> server;
    recorder<std::string> offered_versions;

    explicit raw_server_fixture(const std::string& answered_version, client_options options = {}) {
        auto [client_end, server_end] = ipybox::mcp::transport::make_memory_pair(io);
        client = client_session::create(io, client_end, std::move(options));
        server = std::make_unique<raw_peer>(io, server_end);
        server->record_notification("notifications/initialized");
        server->dispatcher->on_request(
            "initialize", [answered_version, offered = offered_versions](
                              const incoming_request& request, responder answer) {
                offered.add(request.params["protocolVersion"].get<std::string>());
                if (answered_version.empty())
                    return;  // tests that need silence replace this handler
                answer.reply({{"protocolVersion", answered_version},
                              {"capabilities", {{"tools", json::object()}}},
                              {"serverInfo", {{"name", "raw-server"}, {"version", "9"}}}});
            });
    }
    outcome<server_description> initialize() {
        outcome<server_description> result;
        client->initialize(result.handler());
        REQUIRE(run_until(io, [&] { return result.done(); }));
        return result;
    }
    // Initializes, then lists the tools (all pages), waiting up to `limit`.
    outcome<std::vector<tool_descriptor>> initialize_and_list(
        std::chrono::milliseconds limit = std::chrono::seconds(10)) {
        REQUIRE_FALSE(initialize().error());
        outcome<std::vector<tool_descriptor>> result;
        client->list_tools(result.handler());
        REQUIRE(run_until(
            io, [&] { return result.done(); }, limit));
        return result;
    }
};

}  // namespace

TEST_SUITE("mcp.session.server_protocol") {
    TEST_CASE("requests before initialize are refused, ping is answered") {
        raw_client_fixture f;
        CHECK(raw_peer::error_code(f.call("tools/list", json::object())) == -32600);
        CHECK(raw_peer::error_code(f.call("tools/call", {{"name", "echo"}})) == -32600);
        CHECK(raw_peer::error_code(f.call("ping", nullptr)) == 0);
    }

    TEST_CASE("the server answers the requested version if supported, else its latest") {
        for (const auto& [requested, expected] :
             std::vector<std::pair<std::string, std::string>>{{"2025-11-25", "2025-11-25"},
                                                              {"2025-06-18", "2025-06-18"},
                                                              {"2025-03-26", "2025-03-26"},
                                                              {"2024-11-05", "2024-11-05"},
                                                              {"1999-01-01", "2025-11-25"}}) {
            raw_client_fixture f;
            const auto result = f.call("initialize", initialize_params(requested));
            REQUIRE_FALSE(result.error());
            CHECK_MESSAGE(result.value()["protocolVersion"] == expected, requested);
            CHECK(result.value()["serverInfo"]["name"] == "ipybox");
            CHECK(result.value()["capabilities"].contains("tools"));
            CHECK(f.server->protocol_version() == expected);
        }
    }

    TEST_CASE("a client that never sends notifications/initialized is still served") {
        raw_client_fixture f;
        REQUIRE_FALSE(f.call("initialize", initialize_params("2025-06-18")).error());
        const auto result =
            f.call("tools/call", {{"name", "echo"}, {"arguments", {{"message", "hi"}}}});
        REQUIRE_FALSE(result.error());
        CHECK(result.value()["content"][0]["text"] == "hi");
    }

    TEST_CASE("a second initialize and an initialize without protocolVersion are refused") {
        raw_client_fixture f;
        CHECK(raw_peer::error_code(f.call("initialize", {{"capabilities", json::object()}})) ==
              -32602);
        REQUIRE_FALSE(f.call("initialize", initialize_params("2025-11-25")).error());
        CHECK(raw_peer::error_code(f.call("initialize", initialize_params("2025-11-25"))) ==
              -32600);
    }

    TEST_CASE("malformed tools/call params are -32602") {
        raw_client_fixture f;
        REQUIRE_FALSE(f.call("initialize", initialize_params("2025-11-25")).error());
        CHECK(raw_peer::error_code(f.call("tools/call", json::object())) == -32602);
        CHECK(raw_peer::error_code(f.call("tools/call", {{"name", 5}})) == -32602);
        CHECK(raw_peer::error_code(f.call("tools/call", {{"name", "echo"}, {"arguments", "x"}})) ==
              -32602);
        CHECK(raw_peer::error_code(f.call("tools/call", {{"name", "echo"}})) == 0);
    }

    TEST_CASE("an unknown tools/list cursor is -32602") {
        raw_client_fixture f;
        REQUIRE_FALSE(f.call("initialize", initialize_params("2025-11-25")).error());
        CHECK(raw_peer::error_code(f.call("tools/list", {{"cursor", "not-ours"}})) == -32602);
        CHECK(raw_peer::error_code(f.call("tools/list", {{"cursor", "99"}})) == -32602);
        const auto all = f.call("tools/list", json::object());
        CHECK(all.value()["tools"].size() == 1);
        CHECK_FALSE(all.value().contains("nextCursor"));
    }

    TEST_CASE("logging/setLevel refuses an unknown level") {
        raw_client_fixture f;
        REQUIRE_FALSE(f.call("initialize", initialize_params("2025-11-25")).error());
        CHECK(raw_peer::error_code(f.call("logging/setLevel", {{"level", "loud"}})) == -32602);
        CHECK(raw_peer::error_code(f.call("logging/setLevel", {{"level", "debug"}})) == 0);
    }
}

TEST_SUITE("mcp.session.client_protocol") {
    TEST_CASE("the client offers 2025-11-25 and accepts every supported answer") {
        for (const std::string version : {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}) {
            raw_server_fixture f(version);
            const auto result = f.initialize();
            REQUIRE_MESSAGE(!result.error(), result.error_message());
            CHECK(result.value().protocol_version == version);
            CHECK(result.value().server_info.name == "raw-server");
            CHECK(f.offered_versions.items() == std::vector<std::string>{"2025-11-25"});
            REQUIRE(run_until(f.io, [&] { return f.server->notifications.size() == 1; }));
        }
    }

    TEST_CASE("the client refuses a server that answers an unsupported version") {
        raw_server_fixture f("2023-01-01");
        const auto result = f.initialize();
        REQUIRE(result.failed_with<unsupported_protocol_version>());
        CHECK(result.error_message().find("2023-01-01") != std::string::npos);
        CHECK(result.error_message().find("2025-11-25") != std::string::npos);
        CHECK(run_until(f.io, [&] { return f.client->is_closed(); }));
        CHECK(f.server->notifications.size() == 0);
    }

    TEST_CASE("initialize fails after connect_timeout when the server never answers") {
        client_options options;
        options.connect_timeout = 50ms;
        raw_server_fixture f("", options);
        std::optional<responder> hold;
        f.server->dispatcher->on_request("initialize", [&](const incoming_request&, responder r) {
            hold = r;  // keeps the request open
        });
        const auto result = f.initialize();
        CHECK(result.failed_with<request_timeout>());
        CHECK(result.error_message().find("50 ms") != std::string::npos);
    }

    TEST_CASE("list_tools refuses a server that repeats a cursor") {
        raw_server_fixture f("2025-11-25");
        f.server->dispatcher->on_request("tools/list", [](const incoming_request&, responder r) {
            r.reply({{"tools", json::array({{{"name", "t"}}})}, {"nextCursor", "again"}});
        });
        REQUIRE_FALSE(f.initialize().error());
        outcome<std::vector<tool_descriptor>> result;
        f.client->list_tools(result.handler());
        REQUIRE(run_until(f.io, [&] { return result.done(); }));
        CHECK(result.failed_with<protocol_error>());
        CHECK(result.error_message().find("repeats cursor 'again'") != std::string::npos);
    }

    TEST_CASE("list_tools stops after 1,000 pages and says so, not that a cursor repeats") {
        raw_server_fixture f("2025-11-25");
        f.server->dispatcher->on_request(
            "tools/list", [](const incoming_request& request, responder r) {
                const auto cursor = request.params.value("cursor", std::string("0"));
                r.reply({{"tools", json::array()},
                         {"nextCursor", std::to_string(std::stoll(cursor) + 1)}});
            });
        const auto result = f.initialize_and_list(60s);
        CHECK(result.failed_with<protocol_error>());
        CHECK(result.error_message().find("stopped after 1000 pages") != std::string::npos);
        CHECK(result.error_message().find("repeats") == std::string::npos);
    }

    TEST_CASE("list_tools reads at most 10,000 tools, and exactly 10,000 is a listing") {
        // Pages of 500 tools; the last page is `pages - 1`.
        const auto listing = [](int pages) {
            raw_server_fixture f("2025-11-25");
            f.server->dispatcher->on_request(
                "tools/list", [pages](const incoming_request& request, responder r) {
                    const int page = std::stoi(request.params.value("cursor", std::string("0")));
                    json tools = json::array();
                    for (int i = 0; i < 500; ++i) {
                        tools.push_back(
                            {{"name", "t" + std::to_string(page) + "_" + std::to_string(i)}});
                    }
                    json page_result = {{"tools", std::move(tools)}};
                    if (page + 1 < pages) page_result["nextCursor"] = std::to_string(page + 1);
                    r.reply(std::move(page_result));
                });
            return f.initialize_and_list(60s);
        };
        const auto bounded = listing(20);  // control: 10,000 tools
        REQUIRE_FALSE(bounded.error());
        CHECK(bounded.value().size() == 10000);
        const auto over = listing(21);  // 10,500 tools
        CHECK(over.failed_with<protocol_error>());
        CHECK(over.error_message().find("more than 10000 tools") != std::string::npos);
    }

    TEST_CASE("list_tools reads at most 64 MiB of tools, and exactly 64 MiB is a listing") {
        // Pages of 8 tools with descriptions of about 1 MiB, until the tools' JSON text comes
        // to `total` bytes: the last tool's description makes up the difference.
        const auto listing = [](std::size_t total) {
            raw_server_fixture f("2025-11-25");
            auto sent = std::make_shared<std::size_t>(0);
            f.server->dispatcher->on_request(
                "tools/list", [total, sent](const incoming_request& request, responder r) {
                    const int page = std::stoi(request.params.value("cursor", std::string("0")));
                    json tools = json::array();
                    for (int i = 0; i < 8 && *sent < total; ++i) {
                        json tool = {{"name", "t" + std::to_string(page) + "_" + std::to_string(i)},
                                     {"description", ""}};
                        const auto bare = tool.dump().size();
                        const auto room = total - *sent - bare;
                        tool["description"] =
                            std::string(std::min<std::size_t>(room, 1 << 20), 'd');
                        *sent += tool.dump().size();
                        tools.push_back(std::move(tool));
                    }
                    json page_result = {{"tools", std::move(tools)}};
                    if (*sent < total) page_result["nextCursor"] = std::to_string(page + 1);
                    r.reply(std::move(page_result));
                });
            return f.initialize_and_list(60s);
        };
        const std::size_t bound = 64 * 1024 * 1024;
        const auto bounded = listing(bound);  // control: exactly the bound
        REQUIRE_MESSAGE(!bounded.error(), bounded.error_message());
        CHECK(bounded.value().size() > 60);
        const auto over = listing(bound + 1);
        CHECK(over.failed_with<protocol_error>());
        CHECK(over.error_message().find("the tools of MCP server") != std::string::npos);
        CHECK(over.error_message().find("more than 64 MiB of JSON (67108864 bytes)") !=
              std::string::npos);
    }

    TEST_CASE("the pages of one listing share its total limit") {
        client_options options;
        options.request_timeout = 10s;  // no page waits this long
        options.max_list_duration = 300ms;
        options.max_list_setting = "\"timeouts\": {\"max_list\": seconds}";
        raw_server_fixture f("2025-11-25", options);
        // Each page comes after 50 ms, with yet another cursor.
        f.server->dispatcher->on_request(
            "tools/list", [&io = f.io](const incoming_request&, responder r) {
                auto timer = std::make_shared<asio::steady_timer>(io, 50ms);
                timer->async_wait([timer, r](const boost::system::error_code&) {
                    r.reply({{"tools", json::array()},
                             {"nextCursor", "c" + ipybox::core::random_hex(4)}});
                });
            });
        REQUIRE_FALSE(f.initialize().error());
        outcome<std::vector<tool_descriptor>> result;
        f.client->list_tools(result.handler());
        REQUIRE(run_until(f.io, [&] { return result.done(); }));
        CHECK(result.failed_with<request_timeout>());
        const auto message = result.error_message();
        CHECK_MESSAGE(message.find("MCP server 'client' did not finish listing its tools within "
                                   "the listing's total limit of 300 ms (tools/list, page ") == 0,
                      message);
        CHECK(message.find("raise \"timeouts\": {\"max_list\": seconds}") != std::string::npos);
    }

    TEST_CASE("a cancelled initialize fails at once and closes the session") {
        raw_server_fixture f("");
        std::optional<responder> hold;
        f.server->dispatcher->on_request("initialize", [&](const incoming_request&, responder r) {
            hold = r;  // never answers
        });
        ipybox::mcp::jsonrpc::cancellation_source source;
        outcome<server_description> result;
        f.client->initialize(source.token(), result.handler());
        run_for(f.io, 20ms);
        source.cancel("the user gave up");
        REQUIRE(run_until(f.io, [&] { return result.done(); }));
        CHECK_MESSAGE(result.failed_with<ipybox::mcp::jsonrpc::request_cancelled>(),
                      result.error_message());
        CHECK(result.error_message().find("the user gave up") != std::string::npos);
        REQUIRE(run_until(f.io, [&] { return f.client->is_closed(); }));
    }

    TEST_CASE("a server that declares no tools capability is not sent tools requests") {
        raw_server_fixture f("");
        recorder<std::string> received;
        f.server->dispatcher->on_request("initialize", [](const incoming_request&, responder r) {
            r.reply({{"protocolVersion", "2025-11-25"},
                     {"capabilities", {{"prompts", json::object()}}},
                     {"serverInfo", {{"name", "no-tools"}, {"version", "1"}}}});
        });
        for (const std::string method : {"tools/list", "tools/call", "resources/list"}) {
            f.server->dispatcher->on_request(method, [=](const incoming_request&, responder r) {
                received.add(method);
                r.reply({{"tools", json::array()}, {"content", json::array()}});
            });
        }
        REQUIRE_FALSE(f.initialize().error());
        outcome<std::vector<tool_descriptor>> listed;
        f.client->list_tools(listed.handler());
        outcome<call_tool_result> called;
        f.client->call_tool("t", json::object(), {}, called.handler());
        outcome<json> resources;
        f.client->request("resources/list", json::object(), {}, resources.handler());
        outcome<json> prompts;  // declared: sent, and answered with method-not-found
        f.client->request("prompts/list", json::object(), {}, prompts.handler());
        REQUIRE(run_until(f.io, [&] {
            return listed.done() && called.done() && resources.done() && prompts.done();
        }));
        CHECK(listed.failed_with<capability_not_declared>());
        CHECK(called.failed_with<capability_not_declared>());
        CHECK(resources.failed_with<capability_not_declared>());
        CHECK(listed.error_message().find("\"tools\"") != std::string::npos);
        CHECK_FALSE(prompts.failed_with<capability_not_declared>());
        CHECK(received.items().empty());
    }

    TEST_CASE("a malformed tools/call result is a protocol error") {
        raw_server_fixture f("2025-11-25");
        f.server->dispatcher->on_request("tools/call", [](const incoming_request&, responder r) {
            r.reply({{"content", "not an array"}});
        });
        REQUIRE_FALSE(f.initialize().error());
        outcome<call_tool_result> result;
        f.client->call_tool("t", json::object(), {}, result.handler());
        REQUIRE(run_until(f.io, [&] { return result.done(); }));
        CHECK(result.failed_with<protocol_error>());
    }
}
