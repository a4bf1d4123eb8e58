// The legacy HTTP+SSE client transport against a scripted in-process server on 127.0.0.1.
#include <doctest/doctest.h>

#include "fake_http_server.hpp"
#include "ipybox/mcp/http/sse_transport.hpp"
#include "transport_harness.hpp"

using namespace ipybox::testing;
using namespace std::chrono_literals;
namespace http = ipybox::mcp::http;
using json = nlohmann::json;

namespace {

std::shared_ptr<http::sse_transport> make_transport(transport_harness& h,
                                                    const fake_http_server& server,
                                                    std::chrono::milliseconds connect = 2s) {
    http::http_transport_options options;
    options.url = server.url("/sse");
    options.headers = {{"X-Api-Key", "k1"}};
    options.connect_timeout = connect;
    return http::sse_transport::create(h.io, options);
}

// A legacy server: GET /sse streams the endpoint event, then answers each POSTed request on the
// stream (kept open until the test ends or `end_after` messages went out).
struct legacy_server {
    std::string endpoint = "/messages?session=abc";
    std::mutex mutex;
    std::condition_variable posted;
    std::vector<std::string> bodies;
    bool stream_done = false;

    fake_http_server::handler handler() {
        return [this](const recorded_request& request, reply& answer) {
            if (request.method == "GET") {
                answer.start_stream();
                answer.event(endpoint, {}, "endpoint");
                std::size_t sent = 0;
                while (answer.sleep(10ms)) {
                    std::unique_lock lock(mutex);
                    while (sent < bodies.size()) {
                        const auto body = json::parse(bodies[sent++]);
                        if (body.contains("id")) answer.event(result_json(body["id"]));
                    }
                    if (stream_done) return answer.end();
                }
                return;
            }
            {
                std::lock_guard lock(mutex);
                bodies.push_back(request.body);
            }
            answer.send(202, "Accepted");
        };
    }
};

}  // namespace

TEST_SUITE("mcp.http.sse") {
    TEST_CASE("queues until the endpoint event, resolves it against the SSE URL, posts there") {
        legacy_server script;
        fake_http_server server(script.handler());
        transport_harness h;
        auto transport = make_transport(h, server);
        h.start(transport);
        h.channel->send(request(1, "initialize"));  // before the endpoint is known
        REQUIRE(h.wait_for_messages(1));
        CHECK(std::get<jsonrpc::response>(h.message(0)).id == jsonrpc::request_id(std::int64_t{1}));
        CHECK(transport->endpoint() == server.url("/messages?session=abc"));

        const auto requests = server.requests();
        REQUIRE(requests.size() == 2);
        CHECK(requests[0].method == "GET");
        CHECK(requests[0].target == "/sse");
        CHECK(requests[0].header("accept") == "text/event-stream");
        CHECK(requests[0].header("x-api-key") == "k1");
        CHECK(requests[1].method == "POST");
        CHECK(requests[1].target == "/messages?session=abc");
        CHECK(requests[1].header("content-type") == "application/json");
        CHECK(requests[1].header("x-api-key") == "k1");
        h.channel->close();
        REQUIRE(h.wait_for_close());
        CHECK(h.closed[0].requested);
    }

    TEST_CASE("POSTs go out one at a time, in the order they were sent") {
        legacy_server script;
        fake_http_server server(script.handler());
        transport_harness h;
        auto transport = make_transport(h, server);
        h.start(transport);
        transport->set_protocol_version("2024-11-05");
        for (int i = 0; i < 8; ++i) h.channel->send(notification("n" + std::to_string(i)));
        h.channel->send(request(99, "last"));
        REQUIRE(h.wait_for_messages(1));
        std::lock_guard lock(script.mutex);
        REQUIRE(script.bodies.size() == 9);
        for (int i = 0; i < 8; ++i) {
            CHECK(json::parse(script.bodies[i])["method"] == "n" + std::to_string(i));
        }
        CHECK(server.requests()[1].header("mcp-protocol-version") == "2024-11-05");
    }

    TEST_CASE("an absolute endpoint on another origin is refused and closes the transport") {
        legacy_server script;
        script.endpoint = "http://198.51.100.7:8080/steal";
        fake_http_server server(script.handler());
        transport_harness h;
        h.start(make_transport(h, server));
        h.channel->send(request(1, "initialize"));
        REQUIRE(h.wait_for_close());
        CHECK(h.closed[0].reason.find("another origin (http://198.51.100.7:8080)") !=
              std::string::npos);
        CHECK(server.request_count() == 1);  // nothing was posted anywhere
    }

    TEST_CASE("the end of the SSE stream closes the transport with the reason") {
        legacy_server script;
        fake_http_server server(script.handler());
        transport_harness h;
        h.start(make_transport(h, server));
        h.channel->send(request(1, "initialize"));
        REQUIRE(h.wait_for_messages(1));
        {
            std::lock_guard lock(script.mutex);
            script.stream_done = true;
        }
        REQUIRE(h.wait_for_close());
        CHECK_FALSE(h.closed[0].requested);
        CHECK(h.closed[0].reason.find("ended the SSE stream") != std::string::npos);
    }

    TEST_CASE("no endpoint event within the connect timeout closes the transport") {
        fake_http_server server([](const recorded_request&, reply& answer) {
            answer.start_stream();
            answer.chunk(": waiting\n\n");
            answer.sleep(3s);
        });
        transport_harness h;
        h.start(make_transport(h, server, 300ms));
        REQUIRE(h.wait_for_close(3s));
        CHECK(h.closed[0].reason.find("no endpoint event arrived within 300 ms") !=
              std::string::npos);
    }

    TEST_CASE("a refused GET closes the transport with the status") {
        fake_http_server server(
            [](const recorded_request&, reply& answer) { answer.send(401, "token required"); });
        transport_harness h;
        h.start(make_transport(h, server));
        REQUIRE(h.wait_for_close());
        CHECK(h.closed[0].reason.find("HTTP 401 Unauthorized: token required") !=
              std::string::npos);
    }

    TEST_CASE("an HTTP error for a posted request completes it with an error response") {
        fake_http_server server([](const recorded_request& request, reply& answer) {
            if (request.method == "POST") return answer.send(500, "boom");
            answer.start_stream();
            answer.event("/m", {}, "endpoint");
            answer.sleep(3s);
        });
        transport_harness h;
        h.start(make_transport(h, server));
        h.channel->send(request(7, "tools/call"));
        REQUIRE(h.wait_for_messages(1));
        const auto& error = std::get<jsonrpc::error_response>(h.message(0));
        CHECK(error.error.message.find("HTTP 500 Internal Server Error: boom") !=
              std::string::npos);
        CHECK(h.channel->is_open());
        h.channel->close();
        REQUIRE(h.wait_for_close());
    }
}
