// The Streamable HTTP client transport against a scripted in-process server on 127.0.0.1.
#include <doctest/doctest.h>

#include <boost/asio/ip/tcp.hpp>

#include "fake_http_server.hpp"
#include "ipybox/mcp/http/streamable_http_transport.hpp"
#include "transport_harness.hpp"

using namespace ipybox::testing;
using namespace std::chrono_literals;
namespace http = ipybox::mcp::http;
using json = nlohmann::json;

namespace {

std::shared_ptr<http::streamable_http_transport> make_transport(transport_harness& h,
                                                                const fake_http_server& server,
                                                                http::header_map headers = {}) {
    http::http_transport_options options;
    options.url = server.url("/mcp");
    options.headers = std::move(headers);
    options.default_reconnect_delay = 100ms;
    options.connect_timeout = 2s;
    options.read_timeout = 5s;
    return http::streamable_http_transport::create(h.io, options);
}

json body_of(const recorded_request& request) {
    return json::parse(request.body);
}

// Answers initialize with a session id, notifications with 202, GET with 405.
void basic_server(const recorded_request& request, reply& answer) {
    if (request.method == "GET") return answer.send(405);
    if (request.method == "DELETE") return answer.send(200);
    const auto body = body_of(request);
    if (!body.contains("id")) return answer.send(202);
    if (body["method"] == "initialize") {
        return answer.send_json(200, result_json(body["id"], R"({"protocolVersion":"2025-11-25"})"),
                                {{"Mcp-Session-Id", "session-1"}});
    }
    answer.send_json(200, result_json(body["id"], R"({"echo":true})"));
}

std::uint16_t closed_port() {
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor acceptor(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    return acceptor.local_endpoint().port();
}

}  // namespace

TEST_SUITE("mcp.http.streamable") {
    TEST_CASE("POSTs carry the MCP headers, the session id and version follow initialize") {
        fake_http_server server(basic_server);
        transport_harness h;
        auto transport = make_transport(h, server, {{"Authorization", "Bearer t0k"}});
        h.start(transport);
        h.channel->send(request(1, "initialize"));
        REQUIRE(h.wait_for_messages(1));
        CHECK(transport->session_id() == "session-1");
        transport->set_protocol_version("2025-11-25");
        h.channel->send(notification("notifications/initialized"));
        h.channel->send(request(2, "tools/list"));
        REQUIRE(h.wait_for_messages(2));
        REQUIRE(h.run_until([&] { return server.request_count() >= 3; }));

        std::vector<recorded_request> requests;  // the POSTs; a listening GET may interleave
        for (const auto& request : server.requests()) {
            if (request.method == "POST") requests.push_back(request);
        }
        REQUIRE(requests.size() == 3);
        const auto& first = requests[0];
        CHECK(first.method == "POST");
        CHECK(first.target == "/mcp");
        CHECK(first.header("accept") == "application/json, text/event-stream");
        CHECK(first.header("content-type") == "application/json");
        CHECK(first.header("authorization") == "Bearer t0k");
        CHECK(first.header("host") == "127.0.0.1:" + std::to_string(server.port()));
        CHECK_FALSE(first.has_header("mcp-session-id"));
        CHECK_FALSE(first.has_header("mcp-protocol-version"));
        CHECK(body_of(first)["method"] == "initialize");
        for (std::size_t i = 1; i < 3; ++i) {
            CHECK(requests[i].header("mcp-session-id") == "session-1");
            CHECK(requests[i].header("mcp-protocol-version") == "2025-11-25");
            CHECK(requests[i].header("authorization") == "Bearer t0k");
        }
        // The notification reached the server before the request that followed it.
        CHECK(body_of(requests[1])["method"] == "notifications/initialized");
        CHECK(body_of(requests[2])["method"] == "tools/list");
        const auto& response = std::get<jsonrpc::response>(h.message(1));
        CHECK(response.result["echo"] == true);
        CHECK(h.closed.empty());
    }

    TEST_CASE("an SSE response delivers its messages in order, priming events skipped") {
        fake_http_server server([](const recorded_request& request, reply& answer) {
            const auto body = body_of(request);
            answer.start_stream();
            answer.chunk("id: p0\ndata: \n\n");
            answer.event(
                R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}})",
                "e1");
            answer.chunk(": keep-alive\r\nevent: message\r\nid: e2\r\ndata: {\"jsonrpc\":\"2.0\",");
            answer.chunk(
                "\r\ndata: "
                "\"method\":\"notifications/progress\",\"params\":{\"progress\":2}}\r\n\r\n");
            answer.event(result_json(body["id"], R"({"done":true})"), "e3");
            answer.end();
        });
        transport_harness h;
        h.start(make_transport(h, server));
        h.channel->send(request(5, "tools/call"));
        REQUIRE(h.wait_for_messages(3));
        CHECK(std::get<jsonrpc::notification>(h.message(0)).params["progress"] == 1);
        CHECK(std::get<jsonrpc::notification>(h.message(1)).params["progress"] == 2);
        CHECK(std::get<jsonrpc::response>(h.message(2)).result["done"] == true);
        h.run_for(100ms);
        CHECK(h.received.size() == 3);
        CHECK(h.closed.empty());
    }

    TEST_CASE("after initialization a GET stream listens, 405 means the server has none") {
        fake_http_server server(basic_server);
        transport_harness h;
        auto transport = make_transport(h, server);
        h.start(transport);
        h.channel->send(request(1, "initialize"));
        REQUIRE(h.wait_for_messages(1));
        transport->set_protocol_version("2025-06-18");
        h.channel->send(notification("notifications/initialized"));
        REQUIRE(h.run_until([&] { return server.request_count() >= 3; }));
        const auto get = server.requests()[2];
        CHECK(get.method == "GET");
        CHECK(get.header("accept") == "text/event-stream");
        CHECK(get.header("mcp-session-id") == "session-1");
        CHECK(get.header("mcp-protocol-version") == "2025-06-18");
        h.run_for(300ms);
        CHECK(server.request_count() == 3);  // no retries after 405
        CHECK(h.closed.empty());
        CHECK(h.channel->is_open());
    }

    TEST_CASE("server-initiated messages on the GET stream are delivered") {
        fake_http_server server([](const recorded_request& request, reply& answer) {
            if (request.method != "GET") return basic_server(request, answer);
            answer.start_stream();
            answer.event(R"({"jsonrpc":"2.0","id":"s1","method":"ping"})", "g1");
            answer.sleep(2s);
        });
        transport_harness h;
        auto transport = make_transport(h, server);
        h.start(transport);
        h.channel->send(request(1, "initialize"));
        REQUIRE(h.wait_for_messages(1));
        transport->set_protocol_version("2025-11-25");
        h.channel->send(notification("notifications/initialized"));
        REQUIRE(h.wait_for_messages(2));
        CHECK(std::get<jsonrpc::request>(h.message(1)).method == "ping");
        h.channel->close();
        REQUIRE(h.wait_for_close());
    }

    TEST_CASE("an HTTP error for a request completes it with an error response, still open") {
        fake_http_server server([](const recorded_request&, reply& answer) {
            answer.send_json(
                500, R"({"jsonrpc":"2.0","error":{"code":-32603,"message":"db down"},"id":null})");
        });
        transport_harness h;
        h.start(make_transport(h, server));
        h.channel->send(request(3, "tools/call"));
        REQUIRE(h.wait_for_messages(1));
        const auto& error = std::get<jsonrpc::error_response>(h.message(0));
        CHECK(error.id == jsonrpc::request_id(std::int64_t{3}));
        CHECK(error.error.code == http::http_failure_code);
        CHECK(error.error.message.find("HTTP 500") != std::string::npos);
        CHECK(error.error.message.find("db down") != std::string::npos);
        CHECK(error.error.data["httpStatus"] == 500);
        CHECK(h.channel->is_open());
    }

    TEST_CASE("404 for a request with a session id closes: the session expired") {
        fake_http_server server([](const recorded_request& request, reply& answer) {
            if (request.has_header("mcp-session-id")) return answer.send(404);
            basic_server(request, answer);
        });
        transport_harness h;
        h.start(make_transport(h, server));
        h.channel->send(request(1, "initialize"));
        REQUIRE(h.wait_for_messages(1));
        h.channel->send(request(2, "tools/list"));
        REQUIRE(h.wait_for_close());
        CHECK_FALSE(h.closed[0].requested);
        CHECK(h.closed[0].reason.find("session session-1 has expired") != std::string::npos);
        CHECK(h.closed[0].reason.find("404") != std::string::npos);
        CHECK(h.received.size() == 1);
    }

    TEST_CASE("close sends DELETE with the session id, then reports a requested close") {
        fake_http_server server([](const recorded_request& request, reply& answer) {
            if (request.method == "DELETE") return answer.send(405);
            basic_server(request, answer);
        });
        transport_harness h;
        h.start(make_transport(h, server));
        h.channel->send(request(1, "initialize"));
        REQUIRE(h.wait_for_messages(1));
        h.channel->close();
        REQUIRE(h.wait_for_close());
        CHECK(h.closed[0].requested);
        const auto requests = server.requests();
        REQUIRE(requests.size() == 2);
        CHECK(requests[1].method == "DELETE");
        CHECK(requests[1].header("mcp-session-id") == "session-1");
        CHECK_THROWS_AS(h.channel->send(request(2, "ping")),
                        ipybox::mcp::transport::transport_error);
    }

    TEST_CASE("without a session id, close sends nothing") {
        fake_http_server server([](const recorded_request& request, reply& answer) {
            answer.send_json(200, result_json(body_of(request)["id"]));
        });
        transport_harness h;
        h.start(make_transport(h, server));
        h.channel->send(request(1, "initialize"));
        REQUIRE(h.wait_for_messages(1));
        h.channel->close();
        REQUIRE(h.wait_for_close());
        CHECK(server.request_count() == 1);
    }

    TEST_CASE("a server that cannot be reached closes the transport with the reason") {
        transport_harness h;
        http::http_transport_options options;
        options.url = "http://127.0.0.1:" + std::to_string(closed_port()) + "/mcp";
        h.start(http::streamable_http_transport::create(h.io, options));
        h.channel->send(request(1, "initialize"));
        REQUIRE(h.wait_for_close());
        CHECK_FALSE(h.closed[0].requested);
        CHECK(h.closed[0].reason.find("cannot reach the server") != std::string::npos);
        CHECK(h.closed[0].reason.find("refused") != std::string::npos);
    }

    TEST_CASE("a response stream that breaks after event ids is resumed with Last-Event-ID") {
        fake_http_server server([](const recorded_request& request, reply& answer) {
            if (request.method == "POST") {
                answer.start_stream();
                answer.chunk("id: e1\nretry: 300\ndata: \n\n");
                return answer.end();  // closed before the response: the client must poll
            }
            answer.start_stream();
            answer.event(result_json(9, R"({"resumed":true})"), "e2");
            answer.end();
        });
        transport_harness h;
        h.start(make_transport(h, server));
        const auto started = std::chrono::steady_clock::now();
        h.channel->send(request(9, "tools/call"));
        REQUIRE(h.wait_for_messages(1));
        CHECK(std::chrono::steady_clock::now() - started >= 300ms);
        CHECK(std::get<jsonrpc::response>(h.message(0)).result["resumed"] == true);
        const auto requests = server.requests();
        REQUIRE(requests.size() == 2);
        CHECK(requests[1].method == "GET");
        CHECK(requests[1].header("last-event-id") == "e1");
        CHECK(h.closed.empty());
    }

    TEST_CASE("a stream that cannot be resumed completes its request with an error") {
        fake_http_server server([](const recorded_request& request, reply& answer) {
            if (request.method == "GET") return answer.send(405);
            answer.start_stream();
            answer.chunk("id: e1\ndata: \n\n");
        });
        transport_harness h;
        h.start(make_transport(h, server));
        h.channel->send(request(4, "tools/call"));
        REQUIRE(h.wait_for_messages(1));
        const auto& error = std::get<jsonrpc::error_response>(h.message(0));
        CHECK(error.id == jsonrpc::request_id(std::int64_t{4}));
        CHECK(error.error.message.find("HTTP 405") != std::string::npos);
        CHECK(h.channel->is_open());
    }

    TEST_CASE("a stream without ids that breaks mid-response closes the transport") {
        fake_http_server server([](const recorded_request&, reply& answer) {
            answer.start_stream();
            answer.event(R"({"jsonrpc":"2.0","method":"notifications/progress","params":{}})");
            answer.drop();
        });
        transport_harness h;
        h.start(make_transport(h, server));
        h.channel->send(request(1, "tools/call"));
        REQUIRE(h.wait_for_close());
        CHECK(h.received.size() == 1);
        CHECK(h.closed[0].reason.find("lost the connection") != std::string::npos);
    }

    TEST_CASE("the listening stream reconnects after retry with Last-Event-ID") {
        fake_http_server server([](const recorded_request& request, reply& answer) {
            if (request.method != "GET") return basic_server(request, answer);
            answer.start_stream();
            answer.chunk("id: ev-" + std::to_string(request.has_header("last-event-id") ? 2 : 1) +
                         "\nretry: 250\ndata: \n\n");
            answer.sleep(50ms);
            answer.end();
        });
        transport_harness h;
        auto transport = make_transport(h, server);
        h.start(transport);
        h.channel->send(request(1, "initialize"));
        REQUIRE(h.wait_for_messages(1));
        transport->set_protocol_version("2025-11-25");
        h.channel->send(notification("notifications/initialized"));
        REQUIRE(h.run_until([&] { return server.request_count() >= 3; }));
        const auto first_get = std::chrono::steady_clock::now();
        REQUIRE(h.run_until([&] { return server.request_count() >= 4; }, 3s));
        CHECK(std::chrono::steady_clock::now() - first_get >= 250ms);
        const auto requests = server.requests();
        CHECK_FALSE(requests[2].has_header("last-event-id"));
        CHECK(requests[3].method == "GET");
        CHECK(requests[3].header("last-event-id") == "ev-1");
        h.channel->close();
        REQUIRE(h.wait_for_close());
    }

    TEST_CASE("a notification waits for earlier requests and holds back later ones") {
        fake_http_server server([](const recorded_request& request, reply& answer) {
            const auto body = body_of(request);
            if (!body.contains("id")) {
                answer.sleep(200ms);  // the next message must not overtake this one
                return answer.send(202);
            }
            answer.sleep(body["method"] == "slow" ? 300ms : 0ms);
            answer.send_json(200, result_json(body["id"]));
        });
        transport_harness h;
        h.start(make_transport(h, server));
        h.channel->send(request(1, "slow"));
        h.channel->send(notification("notifications/cancelled"));
        h.channel->send(request(2, "after"));
        REQUIRE(h.wait_for_messages(2));
        std::map<std::string, recorded_request> by_method;
        for (const auto& request : server.requests())
            by_method[body_of(request)["method"]] = request;
        const auto& slow = by_method["slow"];
        const auto& cancelled = by_method["notifications/cancelled"];
        const auto& after = by_method["after"];
        // Connections are accepted in the order the client opened them.
        CHECK(slow.connection < cancelled.connection);
        CHECK(cancelled.connection < after.connection);
        CHECK(after.received - cancelled.received >= 200ms);
    }

    TEST_CASE("an invalid Mcp-Session-Id closes the transport") {
        fake_http_server server([](const recorded_request& request, reply& answer) {
            answer.send_json(200, result_json(body_of(request)["id"]),
                             {{"Mcp-Session-Id", "bad id"}});
        });
        transport_harness h;
        h.start(make_transport(h, server));
        h.channel->send(request(1, "initialize"));
        REQUIRE(h.wait_for_close());
        CHECK(h.closed[0].reason.find("invalid Mcp-Session-Id") != std::string::npos);
    }
}
