// https: peer verification against a CA we trust, and a clear failure against one we do not.
#include <doctest/doctest.h>

#include "fake_http_server.hpp"
#include "ipybox/mcp/http/streamable_http_transport.hpp"
#include "test_paths.hpp"
#include "transport_harness.hpp"

using namespace ipybox::testing;
namespace http = ipybox::mcp::http;
using json = nlohmann::json;

namespace {

void answer_requests(const recorded_request& request, reply& answer) {
    answer.send_json(200, result_json(json::parse(request.body)["id"], R"({"tls":true})"));
}

}  // namespace

TEST_SUITE("mcp.http.tls") {
    TEST_CASE("https works when the server's certificate is trusted") {
        const auto certificate = make_test_certificate(fresh_directory("mcp_http_tls"));
        fake_http_server server(answer_requests, certificate);
        transport_harness h;
        http::http_transport_options options;
        options.url = server.url("/mcp");
        options.extra_ca_file = certificate.certificate.string();
        h.start(http::streamable_http_transport::create(h.io, options));
        h.channel->send(request(1, "initialize"));
        REQUIRE(h.wait_for_messages(1));
        CHECK(std::get<jsonrpc::response>(h.message(0)).result["tls"] == true);
    }

    TEST_CASE("an untrusted certificate closes the transport with the verification error") {
        const auto certificate = make_test_certificate(fresh_directory("mcp_http_tls"));
        fake_http_server server(answer_requests, certificate);
        transport_harness h;
        http::http_transport_options options;
        options.url = server.url("/mcp");
        h.start(http::streamable_http_transport::create(h.io, options));
        h.channel->send(request(1, "initialize"));
        REQUIRE(h.wait_for_close());
        CHECK(h.closed[0].reason.find("certificate verification failed") != std::string::npos);
        CHECK(server.request_count() == 0);
    }

    TEST_CASE("a CA file that cannot be loaded is an error at creation") {
        boost::asio::io_context io;
        http::http_transport_options options;
        options.url = "https://127.0.0.1:1/mcp";
        options.extra_ca_file = "/nonexistent/ca.pem";
        CHECK_THROWS_WITH(http::streamable_http_transport::create(io, options),
                          doctest::Contains("cannot load the CA file /nonexistent/ca.pem"));
    }
}
