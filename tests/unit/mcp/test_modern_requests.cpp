// The server session's 2026-07-28 side (request_meta.hpp): server/discover, per-request _meta
// instead of initialize, and the errors a modern request gets, each beside its legacy control.
#include "ipybox/mcp/jsonrpc/errors.hpp"
#include "ipybox/mcp/session/request_meta.hpp"
#include "session_fixture.hpp"

using namespace ipybox::testing;
using ipybox::mcp::jsonrpc::jsonrpc_error;
using ipybox::mcp::jsonrpc::remote_error;
using ipybox::mcp::session::request_meta;
using ipybox::mcp::session::server_options;
using ipybox::mcp::session::server_session;
namespace session = ipybox::mcp::session;
namespace asio = boost::asio;

namespace {

json modern_meta(const std::string& version = "2026-07-28", json capabilities = json::object()) {
    return {{"io.modelcontextprotocol/protocolVersion", version},
            {"io.modelcontextprotocol/clientCapabilities", std::move(capabilities)},
            {"io.modelcontextprotocol/clientInfo", {{"name", "modern-test"}, {"version", "1"}}}};
}

json modern(json params = json::object(), json meta = modern_meta()) {
    params["_meta"] = std::move(meta);
    return params;
}

server_options test_server() {
    server_options options;
    options.server_info = {"ipybox-test", "7.0", std::nullopt};
    options.instructions = "use the tools";
    return options;
}

// A server session with one tool that reports what it saw of the request's era.
struct modern_fixture : server_with_raw_client {
    explicit modern_fixture(server_options options = test_server())
        : server_with_raw_client(std::move(options)) {
        server->add_tool(tool_named("era"),
                         [](json, request_context context) -> asio::awaitable<call_tool_result> {
                             const auto& meta = context.modern();
                             co_return call_tool_result::text(
                                 !meta ? std::string("legacy")
                                       : meta->protocol_version +
                                             (meta->supports("elicitation") ? " elicitation" : ""));
                         });
    }
    void initialize() {
        const auto answer =
            call("initialize", {{"protocolVersion", "2025-11-25"},
                                {"capabilities", json::object()},
                                {"clientInfo", {{"name", "legacy"}, {"version", "0"}}}});
        REQUIRE_MESSAGE(!answer.error(), answer.error_message());
    }
};

ipybox::mcp::jsonrpc::error_object remote_error_of(const outcome<json>& result) {
    try {
        if (auto failure = result.error()) std::rethrow_exception(failure);
    } catch (const remote_error& error) {
        return error.error();
    } catch (...) {
    }
    FAIL("expected a JSON-RPC error from the server");
    return {};
}

}  // namespace

TEST_CASE("server/discover answers supported versions, capabilities and serverInfo") {
    modern_fixture fixture;
    const auto answer = fixture.call("server/discover", modern());
    REQUIRE_MESSAGE(!answer.error(), answer.error_message());
    const auto& result = answer.value();
    CHECK(result["resultType"] == "complete");
    CHECK(result["supportedVersions"][0] == "2026-07-28");
    CHECK(std::find(result["supportedVersions"].begin(), result["supportedVersions"].end(),
                    "2025-11-25") != result["supportedVersions"].end());
    CHECK(result["capabilities"].contains("tools"));
    CHECK(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "ipybox-test");
    CHECK(result["instructions"] == "use the tools");
    CHECK(result["ttlMs"].is_number());
    CHECK(result["cacheScope"] == "public");
}

TEST_CASE("server/discover without a modern _meta is invalid params") {
    modern_fixture fixture;
    CHECK(remote_error_of(fixture.call("server/discover", json::object())).code == -32602);
}

TEST_CASE("a modern tools/call is served without initialize, a legacy one is refused") {
    modern_fixture fixture;
    const auto served = fixture.call("tools/call", modern({{"name", "era"}}));
    REQUIRE_MESSAGE(!served.error(), served.error_message());
    CHECK(served.value()["content"][0]["text"] == "2026-07-28");
    CHECK(served.value()["resultType"] == "complete");
    CHECK(served.value()["_meta"]["io.modelcontextprotocol/serverInfo"]["version"] == "7.0");
    // Control: the same call without _meta needs the handshake.
    CHECK(remote_error_of(fixture.call("tools/call", {{"name", "era"}})).code == -32600);
}

TEST_CASE("a modern request's capabilities reach the tool, per request") {
    modern_fixture fixture;
    const auto asked = fixture.call(
        "tools/call",
        modern({{"name", "era"}}, modern_meta("2026-07-28", {{"elicitation", json::object()}})));
    REQUIRE_MESSAGE(!asked.error(), asked.error_message());
    CHECK(asked.value()["content"][0]["text"] == "2026-07-28 elicitation");
    const auto plain = fixture.call("tools/call", modern({{"name", "era"}}));
    CHECK(plain.value()["content"][0]["text"] == "2026-07-28");
}

TEST_CASE("a modern tools/list carries ttlMs and cacheScope, a legacy one does not") {
    modern_fixture fixture;
    const auto listed = fixture.call("tools/list", modern());
    REQUIRE_MESSAGE(!listed.error(), listed.error_message());
    CHECK(listed.value()["tools"].size() == 1);
    CHECK(listed.value()["ttlMs"].is_number());
    CHECK(listed.value()["resultType"] == "complete");
    fixture.initialize();
    const auto legacy = fixture.call("tools/list", json::object());
    REQUIRE_MESSAGE(!legacy.error(), legacy.error_message());
    CHECK_FALSE(legacy.value().contains("ttlMs"));
    CHECK_FALSE(legacy.value().contains("resultType"));
}

TEST_CASE("both eras on one connection: modern requests after a legacy handshake") {
    modern_fixture fixture;
    fixture.initialize();
    CHECK(fixture.call("tools/call", {{"name", "era"}}).value()["content"][0]["text"] == "legacy");
    CHECK(fixture.call("tools/call", modern({{"name", "era"}})).value()["content"][0]["text"] ==
          "2026-07-28");
}

TEST_CASE("an unsupported protocol version is -32022 naming what is supported") {
    modern_fixture fixture;
    for (const std::string version : {"1900-01-01", "2025-11-25"}) {
        CAPTURE(version);
        const auto error = remote_error_of(
            fixture.call("tools/list", modern(json::object(), modern_meta(version))));
        CHECK(error.code == -32022);
        CHECK(error.data["requested"] == version);
        CHECK(error.data["supported"][0] == "2026-07-28");
    }
}

TEST_CASE("a legacy-only session leads a modern client to initialize (ipybox's stdio)") {
    auto options = test_server();
    options.eras = session::served_eras::legacy_only;
    modern_fixture legacy_only(options);
    modern_fixture control;
    // server/discover is answered, without 2026-07-28: Claude Code then sends initialize.
    const auto discovered = legacy_only.call("server/discover", modern());
    REQUIRE_MESSAGE(!discovered.error(), discovered.error_message());
    const auto& versions = discovered.value()["supportedVersions"];
    CHECK(versions.front() == "2025-11-25");
    CHECK(std::find(versions.begin(), versions.end(), "2026-07-28") == versions.end());
    CHECK(control.call("server/discover", modern()).value()["supportedVersions"][0] ==
          "2026-07-28");
    for (const std::string method : {"tools/list", "tools/call"}) {
        CAPTURE(method);
        const auto params = modern(method == "tools/call" ? json{{"name", "era"}} : json::object());
        const auto refused = remote_error_of(legacy_only.call(method, params));
        CHECK(refused.code == -32022);
        CHECK(refused.data["requested"] == "2026-07-28");
        CHECK(refused.data["supported"][0] == "2025-11-25");
        CHECK_MESSAGE(!control.call(method, params).error(), "the control serves " << method);
    }
    legacy_only.initialize();
    CHECK(legacy_only.call("tools/call", {{"name", "era"}}).value()["content"][0]["text"] ==
          "legacy");
    // Still refused after the handshake: a modern request is never served on this session.
    CHECK(remote_error_of(legacy_only.call("tools/call", modern({{"name", "era"}}))).code ==
          -32022);
}

TEST_CASE("a modern request without clientCapabilities is -32602") {
    modern_fixture fixture;
    auto meta = modern_meta();
    meta.erase("io.modelcontextprotocol/clientCapabilities");
    CHECK(remote_error_of(fixture.call("tools/list", modern(json::object(), meta))).code == -32602);
    // Control: with them it is served.
    CHECK_FALSE(fixture.call("tools/list", modern()).error());
}

TEST_CASE("methods 2026-07-28 removed are not found for a modern request") {
    modern_fixture fixture;
    for (const std::string method : {"ping", "initialize", "logging/setLevel"}) {
        CAPTURE(method);
        CHECK(remote_error_of(fixture.call(method, modern({{"protocolVersion", "2025-11-25"},
                                                           {"level", "info"}})))
                  .code == -32601);
    }
    // Control: ping without _meta is the legacy ping.
    CHECK_FALSE(fixture.call("ping", json::object()).error());
}

TEST_CASE("read_request_meta: legacy, served, and each malformed field") {
    CHECK_FALSE(session::read_request_meta(json::object()).has_value());
    CHECK_FALSE(session::read_request_meta({{"_meta", {{"progressToken", 1}}}}).has_value());
    const auto read = session::read_request_meta(modern());
    REQUIRE(read.has_value());
    CHECK(read->client_info.name == "modern-test");
    CHECK_FALSE(read->log_level.has_value());

    const auto code_of = [](json meta) {
        try {
            session::read_request_meta({{"_meta", std::move(meta)}});
        } catch (const jsonrpc_error& error) {
            return error.code();
        }
        return 0;
    };
    auto meta = modern_meta();
    meta["io.modelcontextprotocol/protocolVersion"] = 20260728;
    CHECK(code_of(meta) == -32602);
    meta = modern_meta();
    meta["io.modelcontextprotocol/clientCapabilities"] = "all";
    CHECK(code_of(meta) == -32602);
    meta = modern_meta();
    meta["io.modelcontextprotocol/clientInfo"] = "me";
    CHECK(code_of(meta) == -32602);
    meta = modern_meta();
    meta["io.modelcontextprotocol/logLevel"] = "loud";
    CHECK(code_of(meta) == -32602);
    meta["io.modelcontextprotocol/logLevel"] = "debug";
    CHECK(code_of(meta) == 0);
}

TEST_CASE("complete_result keeps the result's own _meta") {
    const auto shaped =
        session::complete_result({{"_meta", {{"mine", 1}}}, {"x", 2}}, {"s", "1", std::nullopt});
    CHECK(shaped["_meta"]["mine"] == 1);
    CHECK(shaped["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "s");
    CHECK(shaped["resultType"] == "complete");
    CHECK(shaped["x"] == 2);
}
