// The dispatcher's own requests ending without a normal answer: the timeout restarted by bytes
// still arriving, the total limit nothing extends, and answers that cannot be read.
#include <doctest/doctest.h>

#include <boost/asio/steady_timer.hpp>

#include "ipybox/mcp/jsonrpc/dispatcher.hpp"
#include "ipybox/mcp/jsonrpc/errors.hpp"
#include "mcp_test_support.hpp"

using namespace ipybox::mcp::jsonrpc;
using namespace std::chrono_literals;
using ipybox::testing::outcome;
using ipybox::testing::recorder;
using ipybox::testing::run_until;

namespace {

struct harness {
    boost::asio::io_context io;
    recorder<message> sent;
    recorder<std::int64_t> abandoned;
    std::shared_ptr<dispatcher> d;

    harness() {
        dispatcher_options options;
        options.peer = "MCP server 'hostile'";
        options.on_abandon = [abandoned = abandoned](std::int64_t id) { abandoned.add(id); };
        d = dispatcher::create(
            io, [sent = sent](message msg) { sent.add(std::move(msg)); }, options);
    }
    // Error responses we sent: an answer must never be answered.
    std::size_t sent_of_errors() const {
        std::size_t count = 0;
        for (const auto& msg : sent.items()) count += std::holds_alternative<error_response>(msg);
        return count;
    }
};

// Calls note_activity() every 10 ms until stopped: bytes of a message trickling in. With
// `message_every`, every that many ticks the message completes as a log notification: a peer
// that trickles notifications instead of the answer.
struct trickle {
    boost::asio::steady_timer timer;
    std::shared_ptr<dispatcher> d;
    int message_every = 0;
    int ticks = 0;
    bool running = true;
    trickle(boost::asio::io_context& io, std::shared_ptr<dispatcher> target, int every = 0)
        : timer(io), d(std::move(target)), message_every(every) {
        tick();
    }
    void tick() {
        if (!running) return;
        if (message_every > 0 && ++ticks % message_every == 0) {
            d->receive(decode(R"({"jsonrpc":"2.0","method":"notifications/message",)"
                              R"("params":{"level":"info","data":"working"}})"));
        } else {
            d->note_activity();
        }
        timer.expires_after(10ms);
        timer.async_wait([this](const boost::system::error_code& error) {
            if (!error) tick();
        });
    }
};

}  // namespace

TEST_SUITE("mcp.jsonrpc.dispatcher.deadlines") {
    TEST_CASE("bytes still arriving keep a request alive, but not past its total limit") {
        harness h;
        outcome<json> result;
        request_options options;
        options.timeout = 2s;  // never reached: the trickle restarts it every 10 ms
        options.max_duration = 300ms;
        options.activity_resets_timeout = true;
        h.d->send_request("tools/list", json::object(), options, result.handler());
        trickle bytes(h.io, h.d);
        REQUIRE(run_until(h.io, [&] { return result.done(); }));
        bytes.running = false;
        REQUIRE(result.failed_with<request_timeout>());
        const auto message = result.error_message();
        CHECK(message.find("'tools/list' (request 1) to MCP server 'hostile'") == 0);
        CHECK(message.find("total limit of 300 ms") != std::string::npos);
        CHECK(h.abandoned.items() == std::vector<std::int64_t>{1});
        CHECK(h.d->pending_requests() == 0);
    }

    TEST_CASE("bytes that turn out to be notifications do not keep a request alive") {
        harness h;
        outcome<json> result;
        request_options options;
        options.timeout = 100ms;
        options.max_duration = 3s;
        options.activity_resets_timeout = true;
        h.d->send_request("tools/list", json::object(), options, result.handler());
        trickle notes(h.io, h.d, 5);  // a notification completes every 50 ms
        REQUIRE(run_until(h.io, [&] { return result.done(); }));
        notes.running = false;
        REQUIRE(result.failed_with<request_timeout>());
        CHECK_MESSAGE(result.error_message().find("no answer within 100 ms") != std::string::npos,
                      result.error_message());
    }

    TEST_CASE("bytes of the answer itself keep a request alive past its timeout (control)") {
        harness h;
        outcome<json> result;
        request_options options;
        options.timeout = 100ms;
        options.max_duration = 3s;
        options.activity_resets_timeout = true;
        h.d->send_request("tools/list", json::object(), options, result.handler());
        trickle bytes(h.io, h.d);
        boost::asio::steady_timer finished(h.io, 400ms);
        finished.async_wait([&](const boost::system::error_code&) {
            bytes.running = false;
            h.d->receive(decode(R"({"jsonrpc":"2.0","id":1,"result":{"tools":[]}})"));
        });
        REQUIRE(run_until(h.io, [&] { return result.done(); }));
        REQUIRE_MESSAGE(!result.error(), result.error_message());
    }

    TEST_CASE("without bytes arriving the timeout ends the request before its total limit") {
        harness h;
        outcome<json> result;
        request_options options;
        options.timeout = 100ms;
        options.max_duration = 60s;
        options.activity_resets_timeout = true;
        h.d->send_request("ping", nullptr, options, result.handler());
        REQUIRE(run_until(h.io, [&] { return result.done(); }));
        REQUIRE(result.failed_with<request_timeout>());
        CHECK(result.error_message().find("no answer within 100 ms") != std::string::npos);
    }

    TEST_CASE("bytes count only for requests that opt in") {
        harness h;
        outcome<json> result;
        request_options options;
        options.timeout = 100ms;
        h.d->send_request("tools/call", json::object(), options, result.handler());
        trickle bytes(h.io, h.d);
        REQUIRE(run_until(h.io, [&] { return result.done(); }));
        bytes.running = false;
        CHECK(result.error_message().find("no answer within 100 ms") != std::string::npos);
    }

    TEST_CASE("an unreadable answer fails the request it names at once, with the reason") {
        harness h;
        outcome<json> listed, other;
        h.d->send_request("tools/list", json::object(), {}, listed.handler());
        h.d->send_request("ping", nullptr, {}, other.handler());
        h.d->receive(
            decode("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"\xe9\"}]}}"));
        REQUIRE(run_until(h.io, [&] { return listed.done(); }));
        REQUIRE(listed.failed_with<unreadable_answer>());
        CHECK(listed.error_message() ==
              "'tools/list' (request 1) to MCP server 'hostile' failed: its answer could not be "
              "read: invalid UTF-8 at byte 52");
        CHECK_FALSE(other.done());
        CHECK(h.d->pending_requests() == 1);
        CHECK(h.sent_of_errors() == 0);
    }

    TEST_CASE("an unreadable answer without a readable id fails every pending request") {
        harness h;
        outcome<json> first, second;
        h.d->send_request("tools/list", json::object(), {}, first.handler());
        h.d->send_request("tools/call", json::object(), {}, second.handler());
        // Nested too deep, and cut before its id: nothing says which request it answers.
        h.d->receive(decode("{\"result\":" + std::string(600, '[')));
        REQUIRE(run_until(h.io, [&] { return first.done() && second.done(); }));
        CHECK(first.failed_with<unreadable_answer>());
        CHECK(second.failed_with<unreadable_answer>());
        CHECK(second.error_message().find("nesting deeper than 512 levels") != std::string::npos);
        CHECK(second.error_message().find("every request pending on the connection") !=
              std::string::npos);
        CHECK(h.d->pending_requests() == 0);
        CHECK(h.sent_of_errors() == 0);
    }

    TEST_CASE("an answer that is not a valid response fails the request it names") {
        harness h;
        outcome<json> result;
        h.d->send_request("tools/call", json::object(), {}, result.handler());
        h.d->receive(
            decode(R"({"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}})"));
        REQUIRE(run_until(h.io, [&] { return result.done(); }));
        CHECK(result.failed_with<unreadable_answer>());
        CHECK(result.error_message().find("not a valid JSON-RPC response") != std::string::npos);
    }

    TEST_CASE("an unreadable message that is not an answer fails nothing") {
        harness h;
        outcome<json> result;
        h.d->send_request("tools/list", json::object(), {}, result.handler());
        h.d->receive(decode("{truncated"));
        h.d->receive(decode(
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":\"\xff\"}"));
        h.d->receive(decode(R"({"jsonrpc":"2.0","id":9,"result":"\u0000"} trailing)"));
        ipybox::testing::run_for(h.io, 20ms);
        CHECK_FALSE(result.done());
        CHECK(h.d->pending_requests() == 1);
    }
}
