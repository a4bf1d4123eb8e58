// The HTTP endpoint's rules (request_rules.hpp) without sockets: each refusal beside the request
// that passes.
#include <doctest/doctest.h>

#include "ipybox/core/base64.hpp"
#include "ipybox/mcp/http_server/request_rules.hpp"

using namespace ipybox::mcp::http_server;
using nlohmann::json;

namespace {

request_head post_head(std::vector<std::pair<std::string, std::string>> extra = {}) {
    request_head head;
    head.method = "POST";
    head.target = "/mcp";
    head.add("Host", "127.0.0.1:8000");
    head.add("Content-Type", "application/json");
    head.add("Accept", "application/json, text/event-stream");
    for (const auto& [name, value] : extra) head.add(name, value);
    return head;
}

json modern_body(const std::string& method, json params = json::object(),
                 const std::string& version = "2026-07-28") {
    params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", version},
                       {"io.modelcontextprotocol/clientCapabilities", json::object()}};
    return {{"jsonrpc", "2.0"}, {"id", 7}, {"method", method}, {"params", params}};
}

request_head modern_head(const std::string& method,
                         std::vector<std::pair<std::string, std::string>> extra = {}) {
    extra.emplace_back("MCP-Protocol-Version", "2026-07-28");
    extra.emplace_back("Mcp-Method", method);
    return post_head(std::move(extra));
}

unsigned status_of(const std::optional<http_reply>& reply) {
    return reply ? reply->status : 0;
}

// The reply's status and JSON-RPC error code, or {0, 0} when the verdict is not a reply.
std::pair<unsigned, int> refusal(const post_verdict& verdict) {
    const auto* reply = std::get_if<http_reply>(&verdict);
    if (reply == nullptr) return {0, 0};
    return {reply->status, json::parse(reply->body)["error"]["code"].get<int>()};
}

}  // namespace

TEST_CASE("head: the endpoint path, other paths 404") {
    endpoint_policy policy;
    CHECK(status_of(check_head(post_head(), policy)) == 0);
    auto head = post_head();
    head.target = "/mcp?session=1";
    CHECK(status_of(check_head(head, policy)) == 0);
    head.target = "/other";
    CHECK(status_of(check_head(head, policy)) == 404);
}

TEST_CASE("head: GET is 405, DELETE needs a session id, other methods 405") {
    endpoint_policy policy;
    auto head = post_head();
    head.method = "GET";
    const auto get = check_head(head, policy);
    CHECK(status_of(get) == 405);
    CHECK(get->headers.back() == std::pair<std::string, std::string>("Allow", "POST, DELETE"));
    head.method = "DELETE";
    CHECK(status_of(check_head(head, policy)) == 405);
    head.add("Mcp-Session-Id", "abc");
    CHECK(status_of(check_head(head, policy)) == 0);
    head.method = "PUT";
    CHECK(status_of(check_head(head, policy)) == 405);
}

TEST_CASE("head: a Host that is not loopback is refused when loopback is required") {
    endpoint_policy policy;
    for (const std::string host : {"localhost", "LOCALHOST:9", "127.0.0.1", "[::1]:8000"}) {
        CAPTURE(host);
        request_head head = post_head();
        head.headers.erase("host");
        head.add("Host", host);
        CHECK(status_of(check_head(head, policy)) == 0);
    }
    for (const std::string host :
         {"evil.example", "127.0.0.1.evil.example", "localhost:80x", "[::1", "127.0.0.2"}) {
        CAPTURE(host);
        request_head head = post_head();
        head.headers.erase("host");
        head.add("Host", host);
        CHECK(status_of(check_head(head, policy)) == 403);
        policy.require_loopback_host = false;
        CHECK(status_of(check_head(head, policy)) == 0);
        policy.require_loopback_host = true;
    }
    request_head missing = post_head();
    missing.headers.erase("host");
    CHECK(status_of(check_head(missing, policy)) == 400);
}

TEST_CASE("head: Origin must be a loopback origin or an allowed one") {
    endpoint_policy policy;
    CHECK(status_of(check_head(post_head({{"Origin", "http://localhost:3000"}}), policy)) == 0);
    CHECK(status_of(check_head(post_head({{"Origin", "https://127.0.0.1"}}), policy)) == 0);
    CHECK(status_of(check_head(post_head({{"Origin", "http://evil.example"}}), policy)) == 403);
    CHECK(status_of(check_head(post_head({{"Origin", "null"}}), policy)) == 403);
    CHECK(status_of(check_head(post_head({{"Origin", "http://localhost.evil.example"}}), policy)) ==
          403);
    policy.allowed_origins = {"https://app.example"};
    CHECK(status_of(check_head(post_head({{"Origin", "https://APP.example"}}), policy)) == 0);
}

TEST_CASE("head: a header that must come once, sent twice, is refused") {
    endpoint_policy policy;
    CHECK(status_of(check_head(
              post_head({{"Origin", "http://localhost"}, {"Origin", "http://evil.example"}}),
              policy)) == 400);
    CHECK(status_of(check_head(post_head({{"Mcp-Method", "a"}, {"mcp-method", "b"}}), policy)) ==
          400);
}

TEST_CASE("head: Content-Type, Accept and Content-Length") {
    endpoint_policy policy;
    policy.max_body_bytes = 100;
    auto head = post_head();
    head.headers.erase("content-type");
    head.add("Content-Type", "text/plain");
    CHECK(status_of(check_head(head, policy)) == 415);
    head = post_head();
    head.headers.erase("content-type");
    head.add("Content-Type", "Application/JSON; charset=utf-8");
    CHECK(status_of(check_head(head, policy)) == 0);

    head = post_head();
    head.headers.erase("accept");
    head.add("Accept", "application/json");
    CHECK(status_of(check_head(head, policy)) == 406);
    head.headers.erase("accept");
    head.add("Accept", "*/*");
    CHECK(status_of(check_head(head, policy)) == 0);

    CHECK(status_of(check_head(post_head({{"Content-Length", "100"}}), policy)) == 0);
    CHECK(status_of(check_head(post_head({{"Content-Length", "101"}}), policy)) == 413);
    CHECK(status_of(check_head(post_head({{"Content-Length", "99999999999999999999999"}}),
                               policy)) == 400);
    CHECK(status_of(check_head(post_head({{"Content-Length", "-1"}}), policy)) == 400);
}

TEST_CASE("post: a modern request with matching headers is a modern call") {
    const auto verdict =
        classify_post(modern_head("tools/call", {{"Mcp-Name", "execute_ipython_cell"}}),
                      modern_body("tools/call", {{"name", "execute_ipython_cell"}}).dump());
    REQUIRE(std::holds_alternative<modern_call>(verdict));
    CHECK(std::get<modern_call>(verdict).meta.protocol_version == "2026-07-28");
}

TEST_CASE("post: modern header checks are -32020 with 400") {
    const auto body = modern_body("tools/call", {{"name", "run"}}).dump();
    // Each required header missing in turn.
    CHECK(refusal(classify_post(post_head({{"Mcp-Method", "tools/call"}, {"Mcp-Name", "run"}}),
                                body)) == std::pair(400u, -32020));
    CHECK(refusal(classify_post(
              post_head({{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Name", "run"}}), body)) ==
          std::pair(400u, -32020));
    CHECK(refusal(classify_post(modern_head("tools/call"), body)) == std::pair(400u, -32020));
    // Each disagreeing with the body.
    CHECK(refusal(classify_post(modern_head("tools/list", {{"Mcp-Name", "run"}}), body)) ==
          std::pair(400u, -32020));
    CHECK(refusal(classify_post(modern_head("tools/call", {{"Mcp-Name", "other"}}), body)) ==
          std::pair(400u, -32020));
    auto wrong_version = modern_head("tools/call", {{"Mcp-Name", "run"}});
    wrong_version.headers.erase("mcp-protocol-version");
    wrong_version.add("MCP-Protocol-Version", "2025-11-25");
    CHECK(refusal(classify_post(wrong_version, body)) == std::pair(400u, -32020));
    // Control: all present and agreeing.
    CHECK(refusal(classify_post(modern_head("tools/call", {{"Mcp-Name", "run"}}), body)) ==
          std::pair(0u, 0));
}

TEST_CASE("post: Mcp-Name in the base64 sentinel form is decoded before comparing") {
    const std::string name = "caf\xc3\xa9";
    const auto body = modern_body("tools/call", {{"name", name}}).dump();
    const auto encoded = "=?base64?" + ipybox::core::base64_encode(name) + "?=";
    CHECK(refusal(classify_post(modern_head("tools/call", {{"Mcp-Name", encoded}}), body)) ==
          std::pair(0u, 0));
    CHECK(refusal(classify_post(modern_head("tools/call", {{"Mcp-Name", "=?base64?!!!?="}}),
                                body)) == std::pair(400u, -32020));
    CHECK(decode_header_value("plain") == "plain");
    CHECK_FALSE(decode_header_value("bad\x01value").has_value());
}

TEST_CASE("post: an unsupported version is -32022, a malformed _meta -32602, both 400") {
    auto unsupported = modern_head("tools/list");
    unsupported.headers.erase("mcp-protocol-version");
    unsupported.add("MCP-Protocol-Version", "2099-01-01");
    const auto verdict =
        classify_post(unsupported, modern_body("tools/list", json::object(), "2099-01-01").dump());
    CHECK(refusal(verdict) == std::pair(400u, -32022));
    const auto data = json::parse(std::get<http_reply>(verdict).body)["error"]["data"];
    CHECK(data["supported"][0] == "2026-07-28");
    CHECK(data["requested"] == "2099-01-01");

    auto body = modern_body("tools/list");
    body["params"]["_meta"].erase("io.modelcontextprotocol/clientCapabilities");
    CHECK(refusal(classify_post(modern_head("tools/list"), body.dump())) ==
          std::pair(400u, -32602));
    // A request the header calls modern but whose body has no _meta.
    CHECK(refusal(classify_post(modern_head("tools/list"),
                                R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})")) ==
          std::pair(400u, -32602));
}

TEST_CASE("post: legacy initialize opens a session, later requests need its id") {
    const auto init =
        classify_post(post_head(), R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})");
    REQUIRE(std::holds_alternative<legacy_call>(init));
    CHECK_FALSE(std::get<legacy_call>(init).session_id.has_value());
    const std::string list = R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})";
    CHECK(refusal(classify_post(post_head(), list)) == std::pair(400u, -32600));
    const auto named = classify_post(post_head({{"Mcp-Session-Id", "abc"}}), list);
    REQUIRE(std::holds_alternative<legacy_call>(named));
    CHECK(std::get<legacy_call>(named).session_id == "abc");
    CHECK(refusal(classify_post(
              post_head({{"Mcp-Session-Id", "abc"}, {"MCP-Protocol-Version", "1999-01-01"}}),
              list)) == std::pair(400u, -32600));
}

TEST_CASE("post: a response is accepted only within a session") {
    const std::string answer = R"({"jsonrpc":"2.0","id":5,"result":{}})";
    CHECK(refusal(classify_post(post_head(), answer)) == std::pair(400u, -32600));
    CHECK(std::holds_alternative<legacy_call>(
        classify_post(post_head({{"Mcp-Session-Id", "abc"}}), answer)));
}

TEST_CASE("post: not JSON is -32700, a batch -32600, both 400") {
    CHECK(refusal(classify_post(post_head(), "{not json")) == std::pair(400u, -32700));
    CHECK(refusal(classify_post(post_head(), R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])")) ==
          std::pair(400u, -32600));
}

TEST_CASE("answer status: modern method-not-found 404, capability and header errors 400") {
    using ipybox::mcp::jsonrpc::error_response;
    using ipybox::mcp::jsonrpc::response;
    const auto error = [](int code) {
        return ipybox::mcp::jsonrpc::message(error_response{1, {code, "x", nullptr}});
    };
    CHECK(status_for_answer(error(-32601), true) == 404);
    CHECK(status_for_answer(error(-32021), true) == 400);
    CHECK(status_for_answer(error(-32602), true) == 200);
    CHECK(status_for_answer(error(-32601), false) == 200);
    CHECK(status_for_answer(response{1, json::object()}, true) == 200);
}
