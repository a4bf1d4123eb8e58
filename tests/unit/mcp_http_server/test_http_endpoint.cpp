// The HTTP server on 127.0.0.1 with sessions from a test factory, driven by a raw socket client:
// both eras, the switch to SSE, cancellation by a closed stream, and the limits, each with its
// control.
#include <doctest/doctest.h>

// clang-format off
#include <utility>  // Boost 1.74's awaitable.hpp uses std::exchange without including <utility>
// clang-format on
#include <sys/socket.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <thread>

#include "ipybox/mcp/http_server/http_server.hpp"

using namespace ipybox::mcp::http_server;
using ipybox::mcp::session::call_tool_result;
using ipybox::mcp::session::request_context;
using ipybox::mcp::session::server_session;
using ipybox::mcp::session::tool_descriptor;
using nlohmann::json;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

namespace {

tool_descriptor tool(std::string name) {
    tool_descriptor descriptor;
    descriptor.name = std::move(name);
    return descriptor;
}

// An HTTP server whose sessions have two tools: echo (answers at once) and sleep (waits
// arguments.ms, counting the calls its cancellation ended).
struct served_endpoint {
    asio::io_context io;
    asio::executor_work_guard<asio::io_context::executor_type> work{io.get_executor()};
    std::shared_ptr<http_server> server;
    std::uint16_t port = 0;
    std::thread runner;
    std::shared_ptr<std::atomic<int>> cancelled = std::make_shared<std::atomic<int>>(0);

    std::shared_ptr<std::vector<client_identity>> clients =
        std::make_shared<std::vector<client_identity>>();  // as the factory saw them

    explicit served_endpoint(http_limits limits = {}, endpoint_policy policy = {},
                             std::optional<token_table> tokens = std::nullopt) {
        http_server_options options;
        options.host = "127.0.0.1";
        options.port = 0;
        options.limits = limits;
        options.endpoint = policy;
        options.tokens = std::move(tokens);
        server =
            http_server::create(io, options, [this](auto channel, const client_identity& client) {
                clients->push_back(client);  // on the io thread; read after the answer
                auto session = server_session::create(io, std::move(channel));
                session->add_tool(
                    tool("echo"),
                    [](json args, request_context) -> asio::awaitable<call_tool_result> {
                        co_return call_tool_result::text(args.value("message", ""));
                    });
                session->add_tool(
                    tool("sleep"),
                    [counter = cancelled](
                        json args, request_context context) -> asio::awaitable<call_tool_result> {
                        asio::steady_timer timer(co_await asio::this_coro::executor,
                                                 std::chrono::milliseconds(args.value("ms", 0)));
                        auto stop =
                            context.cancellation().on_cancel([&timer, counter](const std::string&) {
                                ++*counter;
                                timer.cancel();
                            });
                        boost::system::error_code error;
                        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, error));
                        co_return call_tool_result::text("slept");
                    });
                return session;
            });
        port = server->start();
        runner = std::thread([this] { io.run(); });
    }
    ~served_endpoint() {
        server->stop();
        work.reset();
        std::this_thread::sleep_for(50ms);
        io.stop();
        runner.join();
    }
};

struct http_response {
    unsigned status = 0;
    std::map<std::string, std::string> headers;  // lowercased names
    std::string body;
    bool closed = false;  // the server closed the connection after it
};

// A blocking client on one connection; every read gives up after 5 s.
struct raw_client {
    asio::io_context io;
    tcp::socket socket{io};
    std::string pending;

    explicit raw_client(std::uint16_t port) {
        socket.connect({asio::ip::make_address("127.0.0.1"), port});
        timeval limit{5, 0};
        setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    }
    void send(const std::string& bytes) { asio::write(socket, asio::buffer(bytes)); }
    // False at end of stream or error.
    bool read_more() {
        char chunk[4096];
        boost::system::error_code error;
        const auto read = socket.read_some(asio::buffer(chunk), error);
        if (error) return false;
        pending.append(chunk, read);
        return true;
    }
    bool server_closed() {
        while (read_more()) {
        }
        return true;
    }
    http_response read_response() {
        http_response response;
        while (pending.find("\r\n\r\n") == std::string::npos) {
            if (!read_more()) {
                response.closed = true;
                return response;
            }
        }
        const auto end = pending.find("\r\n\r\n");
        std::istringstream head(pending.substr(0, end));
        pending.erase(0, end + 4);
        std::string line;
        std::getline(head, line);
        response.status = static_cast<unsigned>(std::stoi(line.substr(9, 3)));
        while (std::getline(head, line)) {
            const auto colon = line.find(':');
            auto name = line.substr(0, colon);
            std::transform(name.begin(), name.end(), name.begin(), ::tolower);
            auto value = line.substr(colon + 1);
            value.erase(0, value.find_first_not_of(' '));
            if (!value.empty() && value.back() == '\r') value.pop_back();
            response.headers[name] = value;
        }
        if (response.headers.count("content-length")) {
            const auto length = std::stoul(response.headers["content-length"]);
            while (pending.size() < length && read_more()) {
            }
            response.body = pending.substr(0, length);
            pending.erase(0, length);
        } else {
            while (read_more()) {
            }
            response.body = std::move(pending);
            pending.clear();
            response.closed = true;
        }
        return response;
    }
};

std::string post(const std::string& body, const std::vector<std::string>& headers = {}) {
    std::string request =
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\nContent-Length: " +
        std::to_string(body.size()) + "\r\n";
    for (const auto& header : headers) request += header + "\r\n";
    return request + "\r\n" + body;
}

json modern_request(const std::string& method, json params = json::object(), int id = 1) {
    params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                       {"io.modelcontextprotocol/clientCapabilities", json::object()}};
    return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
}

std::vector<std::string> modern_headers(const std::string& method, const std::string& name = "") {
    std::vector<std::string> headers{"MCP-Protocol-Version: 2026-07-28", "Mcp-Method: " + method};
    if (!name.empty()) headers.push_back("Mcp-Name: " + name);
    return headers;
}

// A POST of tools/call in each era.
std::string modern_tool_call(const std::string& tool, json arguments) {
    return post(
        modern_request("tools/call", {{"name", tool}, {"arguments", std::move(arguments)}}).dump(),
        modern_headers("tools/call", tool));
}

std::string legacy_tool_call(const std::string& session, int id, const std::string& tool,
                             json arguments) {
    return post(json{{"jsonrpc", "2.0"},
                     {"id", id},
                     {"method", "tools/call"},
                     {"params", {{"name", tool}, {"arguments", std::move(arguments)}}}}
                    .dump(),
                {"Mcp-Session-Id: " + session});
}

// The text of a JSON answer's first content block.
std::string text_of(const http_response& response) {
    return json::parse(response.body)["result"]["content"][0]["text"].get<std::string>();
}

// The JSON of the last "data:" line of an SSE body.
json last_event(const std::string& body) {
    const auto at = body.rfind("data: ");
    REQUIRE(at != std::string::npos);
    return json::parse(body.substr(at + 6, body.find('\n', at) - at - 6));
}

std::string legacy_initialize() {
    return json{{"jsonrpc", "2.0"},
                {"id", 1},
                {"method", "initialize"},
                {"params",
                 {{"protocolVersion", "2025-11-25"},
                  {"capabilities", json::object()},
                  {"clientInfo", {{"name", "raw"}, {"version", "0"}}}}}}
        .dump();
}

// Initializes a legacy session on `client`; returns its id.
std::string open_session(raw_client& client, const std::vector<std::string>& headers = {}) {
    client.send(post(legacy_initialize(), headers));
    auto response = client.read_response();
    REQUIRE(response.status == 200);
    CHECK(json::parse(response.body)["result"]["protocolVersion"] == "2025-11-25");
    return response.headers["mcp-session-id"];
}

template <class Predicate>
bool eventually(Predicate done, std::chrono::milliseconds limit = 3s) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(10ms);
    return done();
}

}  // namespace

TEST_CASE("a modern request is answered as JSON without a session id, on a kept-alive connection") {
    served_endpoint endpoint;
    raw_client client(endpoint.port);
    client.send(post(modern_request("server/discover").dump(), modern_headers("server/discover")));
    auto response = client.read_response();
    CHECK(response.status == 200);
    CHECK(response.headers["content-type"] == "application/json");
    CHECK(response.headers.count("mcp-session-id") == 0);
    CHECK(json::parse(response.body)["result"]["supportedVersions"][0] == "2026-07-28");
    // The same connection serves the next request.
    client.send(modern_tool_call("echo", {{"message", "hi"}}));
    response = client.read_response();
    CHECK(response.status == 200);
    CHECK(text_of(response) == "hi");
    CHECK(json::parse(response.body)["result"]["resultType"] == "complete");
}

TEST_CASE("a modern request for an unknown method is 404 with -32601") {
    served_endpoint endpoint;
    raw_client client(endpoint.port);
    client.send(post(modern_request("nope/nothing").dump(), modern_headers("nope/nothing")));
    auto response = client.read_response();
    CHECK(response.status == 404);
    CHECK(json::parse(response.body)["error"]["code"] == -32601);
}

TEST_CASE("a legacy session: initialize, a call with its id, DELETE, then the id is unknown") {
    served_endpoint endpoint;
    raw_client client(endpoint.port);
    const auto session = open_session(client);
    REQUIRE(session.size() == 32);
    client.send(post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
                     {"Mcp-Session-Id: " + session}));
    CHECK(client.read_response().status == 202);
    const std::string call =
        R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"legacy"}}})";
    client.send(post(call, {"Mcp-Session-Id: " + session}));
    auto response = client.read_response();
    CHECK(response.status == 200);
    CHECK(text_of(response) == "legacy");
    CHECK(response.headers["mcp-session-id"] == session);
    // Control: without the id, the same call is refused.
    client.send(post(call));
    CHECK(client.read_response().status == 400);
    client.send("DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nMcp-Session-Id: " + session +
                "\r\n\r\n");
    CHECK(client.read_response().status == 200);
    client.send(post(call, {"Mcp-Session-Id: " + session}));
    response = client.read_response();
    CHECK(response.status == 404);
    CHECK(json::parse(response.body)["error"]["code"] == -32001);
}

TEST_CASE("both eras at once: a modern call while a legacy session is open") {
    served_endpoint endpoint;
    raw_client legacy(endpoint.port);
    const auto session = open_session(legacy);
    raw_client modern(endpoint.port);
    modern.send(modern_tool_call("echo", {{"message", "m"}}));
    CHECK(text_of(modern.read_response()) == "m");
    legacy.send(legacy_tool_call(session, 2, "echo", {{"message", "l"}}));
    CHECK(text_of(legacy.read_response()) == "l");
}

TEST_CASE("an answer slower than the JSON window comes as SSE, with keep-alive comments") {
    http_limits limits;
    limits.json_window = 50ms;
    limits.keepalive = 100ms;
    served_endpoint endpoint(limits);
    raw_client client(endpoint.port);
    client.send(modern_tool_call("sleep", {{"ms", 400}}));
    auto response = client.read_response();
    CHECK(response.status == 200);
    CHECK(response.headers["content-type"] == "text/event-stream");
    CHECK(response.closed);
    CHECK(response.body.find(":\n\n") != std::string::npos);
    CHECK(last_event(response.body)["result"]["content"][0]["text"] == "slept");
    // Control: a quick answer stays JSON.
    raw_client quick(endpoint.port);
    quick.send(modern_tool_call("sleep", {{"ms", 0}}));
    CHECK(quick.read_response().headers["content-type"] == "application/json");
}

TEST_CASE("closing the stream cancels the modern request") {
    served_endpoint endpoint;
    {
        raw_client client(endpoint.port);
        client.send(modern_tool_call("sleep", {{"ms", 20000}}));
        std::this_thread::sleep_for(200ms);
    }  // closed
    CHECK(eventually([&] { return endpoint.cancelled->load() == 1; }));
    // Control: a call whose client waits is not cancelled.
    raw_client patient(endpoint.port);
    patient.send(modern_tool_call("sleep", {{"ms", 300}}));
    CHECK(text_of(patient.read_response()) == "slept");
    CHECK(endpoint.cancelled->load() == 1);
}

TEST_CASE("closing the stream cancels a legacy session's request, and the session stays") {
    served_endpoint endpoint;
    raw_client client(endpoint.port);
    const auto session = open_session(client);
    {
        raw_client caller(endpoint.port);
        caller.send(legacy_tool_call(session, 9, "sleep", {{"ms", 20000}}));
        std::this_thread::sleep_for(200ms);
    }
    CHECK(eventually([&] { return endpoint.cancelled->load() == 1; }));
    client.send(legacy_tool_call(session, 10, "echo", {{"message", "still"}}));
    CHECK(text_of(client.read_response()) == "still");
}

TEST_CASE("a head that does not arrive within the timeout closes the connection (slowloris)") {
    http_limits limits;
    limits.header_timeout = 300ms;
    served_endpoint endpoint(limits);
    raw_client slow(endpoint.port);
    slow.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    const auto started = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(100ms);
    slow.send("X-Drip: 1\r\n");
    CHECK(slow.server_closed());
    CHECK(std::chrono::steady_clock::now() - started < 2s);
    // Control: a whole request in time is answered.
    raw_client prompt(endpoint.port);
    prompt.send(post(modern_request("server/discover").dump(), modern_headers("server/discover")));
    CHECK(prompt.read_response().status == 200);
}

TEST_CASE("a body that does not arrive within the timeout closes the connection") {
    http_limits limits;
    limits.body_timeout = 300ms;
    served_endpoint endpoint(limits);
    raw_client slow(endpoint.port);
    const auto request =
        post(modern_request("server/discover").dump(), modern_headers("server/discover"));
    slow.send(request.substr(0, request.size() - 5));
    const auto started = std::chrono::steady_clock::now();
    CHECK(slow.server_closed());
    CHECK(std::chrono::steady_clock::now() - started < 2s);
}

TEST_CASE("bodies and heads over the limits are refused") {
    endpoint_policy policy;
    policy.max_body_bytes = 1000;
    served_endpoint endpoint({}, policy);
    const std::string big(2000, ' ');
    raw_client declared(endpoint.port);
    declared.send(
        post(modern_request("server/discover").dump() + big, modern_headers("server/discover")));
    CHECK(declared.read_response().status == 413);
    raw_client chunked(endpoint.port);
    chunked.send(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: "
        "application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n7d0\r\n" +
        big + "\r\n0\r\n\r\n");
    CHECK(chunked.read_response().status == 413);
    raw_client header(endpoint.port);
    header.send(post("{}", {"X-Big: " + std::string(20000, 'a')}));
    CHECK(header.read_response().status == 431);
    // Control: a body within the limit is served.
    raw_client fits(endpoint.port);
    fits.send(post(modern_request("server/discover").dump(), modern_headers("server/discover")));
    CHECK(fits.read_response().status == 200);
}

TEST_CASE("a foreign Origin is refused before the body is read") {
    served_endpoint endpoint;
    raw_client client(endpoint.port);
    client.send(post(modern_request("server/discover").dump(),
                     {"Origin: http://evil.example", "MCP-Protocol-Version: 2026-07-28",
                      "Mcp-Method: server/discover"}));
    CHECK(client.read_response().status == 403);
    raw_client local(endpoint.port);
    local.send(post(modern_request("server/discover").dump(),
                    {"Origin: http://localhost:5173", "MCP-Protocol-Version: 2026-07-28",
                     "Mcp-Method: server/discover"}));
    CHECK(local.read_response().status == 200);
}

TEST_CASE(
    "with bearer tokens: none or a wrong one is 401 with WWW-Authenticate, a right one serves") {
    const std::string alice(40, 'a');
    const std::string bob(40, 'b');
    served_endpoint endpoint({}, {},
                             token_table::parse(alice + " alice max_kernels=2\n" + bob + " bob\n"));
    const auto discover = [&](const std::vector<std::string>& extra) {
        auto headers = modern_headers("server/discover");
        headers.insert(headers.end(), extra.begin(), extra.end());
        raw_client client(endpoint.port);
        client.send(post(modern_request("server/discover").dump(), headers));
        return client.read_response();
    };
    for (const std::vector<std::string>& refused :
         {std::vector<std::string>{},
          {"Authorization: Bearer " + std::string(40, 'c')},
          {"Authorization: Bearer " + alice.substr(1)},
          {"Authorization: Basic " + alice}}) {
        CAPTURE(refused.size());
        const auto response = discover(refused);
        CHECK(response.status == 401);
        CHECK(response.headers.at("www-authenticate").rfind("Bearer", 0) == 0);
        CHECK(response.body.find(alice) == std::string::npos);
    }
    // Two Authorization headers are a malformed request (head_rules.cpp), before any token.
    CHECK(discover({"Authorization: Bearer " + alice, "Authorization: Bearer " + bob}).status ==
          400);
    CHECK(endpoint.clients->empty());  // no session was made for a refused request
    // Controls: each right token is served, under its own principal and limits.
    CHECK(discover({"Authorization: Bearer " + alice}).status == 200);
    CHECK(discover({"Authorization: Bearer " + bob}).status == 200);
    REQUIRE(endpoint.clients->size() == 2);
    CHECK(endpoint.clients->at(0).principal == "alice");
    CHECK(endpoint.clients->at(0).limits.max_kernels == 2u);
    CHECK(endpoint.clients->at(1).principal == "bob");
    CHECK_FALSE(endpoint.clients->at(1).limits.max_kernels);
}

TEST_CASE("with bearer tokens a legacy session id is unknown under another principal's token") {
    const std::string alice = "Authorization: Bearer " + std::string(40, 'a');
    const std::string bob = "Authorization: Bearer " + std::string(40, 'b');
    served_endpoint endpoint(
        {}, {},
        token_table::parse(std::string(40, 'a') + " alice\n" + std::string(40, 'b') + " bob\n"));
    raw_client client(endpoint.port);
    const auto session = open_session(client, {alice});
    const std::string call =
        R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"mine"}}})";
    client.send(post(call, {"Mcp-Session-Id: " + session, bob}));
    CHECK(client.read_response().status == 404);
    client.send("DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n" + bob +
                "\r\nMcp-Session-Id: " + session + "\r\n\r\n");
    CHECK(client.read_response().status == 404);
    // The control: the owner's token reaches the session, which bob's DELETE did not end.
    client.send(post(call, {"Mcp-Session-Id: " + session, alice}));
    const auto response = client.read_response();
    CHECK(response.status == 200);
    CHECK(text_of(response) == "mine");
}

TEST_CASE("without bearer tokens every client is the principal local") {
    served_endpoint endpoint;
    raw_client client(endpoint.port);
    client.send(post(modern_request("server/discover").dump(), modern_headers("server/discover")));
    CHECK(client.read_response().status == 200);
    REQUIRE(endpoint.clients->size() == 1);
    CHECK(endpoint.clients->at(0).principal == "local");
}

TEST_CASE(
    "stop_intake: a request being served is answered, a new one is 503, connections refused") {
    served_endpoint endpoint;
    const auto discover =
        post(modern_request("server/discover").dump(), modern_headers("server/discover"));
    raw_client idle(endpoint.port);  // open and kept alive across the stop
    idle.send(discover);
    CHECK(idle.read_response().status == 200);  // the control, before the stop
    // Its count ends once the server's coroutine returns, just after the reply went out.
    CHECK(eventually([&] { return endpoint.server->requests_in_flight() == 0; }));
    raw_client busy(endpoint.port);
    busy.send(modern_tool_call("sleep", {{"ms", 500}}));
    CHECK(eventually([&] { return endpoint.server->requests_in_flight() == 1; }));
    endpoint.server->stop_intake();
    idle.send(discover);
    const auto refused = idle.read_response();
    CHECK(refused.status == 503);
    CHECK(refused.body.find("shutting down") != std::string::npos);
    const auto answered = busy.read_response();
    INFO("status " << answered.status << " body " << answered.body);
    CHECK(text_of(answered) == "slept");
    CHECK(eventually([&] { return endpoint.server->requests_in_flight() == 0; }));
    CHECK(eventually([&] {
        try {
            raw_client late(endpoint.port);
            return false;
        } catch (const std::exception&) {
            return true;  // nobody listens any more
        }
    }));
}
