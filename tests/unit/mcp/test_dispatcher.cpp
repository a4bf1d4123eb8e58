#include <doctest/doctest.h>

#include <thread>

#include "ipybox/mcp/jsonrpc/dispatcher.hpp"
#include "ipybox/mcp/jsonrpc/errors.hpp"
#include "mcp_test_support.hpp"

using namespace ipybox::mcp::jsonrpc;
using namespace std::chrono_literals;
using ipybox::testing::outcome;
using ipybox::testing::recorder;
using ipybox::testing::run_for;
using ipybox::testing::run_until;

namespace {

// A dispatcher whose peer is the test: what it sends is recorded, what it receives we inject.
struct harness {
    boost::asio::io_context io;
    recorder<message> sent;
    std::shared_ptr<dispatcher> d;

    explicit harness(dispatcher_options options = {}) {
        d = dispatcher::create(
            io, [sent = sent](message msg) { sent.add(std::move(msg)); }, std::move(options));
    }

    template <class T>
    std::vector<T> sent_of() const {
        std::vector<T> out;
        for (const auto& msg : sent.items()) {
            if (const auto* item = std::get_if<T>(&msg)) out.push_back(*item);
        }
        return out;
    }
    std::vector<notification> sent_notifications(const std::string& method) const {
        std::vector<notification> out;
        for (const auto& note : sent_of<notification>()) {
            if (note.method == method) out.push_back(note);
        }
        return out;
    }
    bool wait_sent(std::size_t count) {
        return run_until(io, [&] { return sent.size() >= count; });
    }
};

request_id id_of(std::int64_t value) {
    return request_id(value);
}

}  // namespace

TEST_SUITE("mcp.jsonrpc.dispatcher") {
    TEST_CASE("correlates responses with requests by id, whatever their order") {
        harness h;
        outcome<json> first, second;
        h.d->send_request("a", json::object(), {}, first.handler());
        h.d->send_request("b", json::object(), {}, second.handler());
        const auto requests = h.sent_of<request>();
        REQUIRE(requests.size() == 2);
        CHECK(requests[0].id != requests[1].id);
        h.d->receive(message(response{requests[1].id, json{{"from", "b"}}}));
        h.d->receive(message(response{requests[0].id, json{{"from", "a"}}}));
        REQUIRE(run_until(h.io, [&] { return first.done() && second.done(); }));
        CHECK(first.value() == json{{"from", "a"}});
        CHECK(second.value() == json{{"from", "b"}});
        CHECK(h.d->pending_requests() == 0);
    }

    TEST_CASE("an error response fails the request with remote_error carrying code and data") {
        harness h;
        outcome<json> result;
        h.d->send_request("tools/call", json::object(), {}, result.handler());
        const auto id = h.sent_of<request>().at(0).id;
        h.d->receive(message(error_response{id, {-32602, "Unknown tool: x", json{{"k", 1}}}}));
        REQUIRE(run_until(h.io, [&] { return result.done(); }));
        try {
            std::rethrow_exception(result.error());
        } catch (const remote_error& error) {
            CHECK(error.code() == -32602);
            CHECK(error.error().data == json{{"k", 1}});
            CHECK(error.method() == "tools/call");
            CHECK(std::string(error.what()).find("Unknown tool: x") != std::string::npos);
        }
    }

    TEST_CASE("a request without an answer times out and the peer is told to cancel it") {
        harness h;
        outcome<json> result;
        request_options options;
        options.timeout = 50ms;
        h.d->send_request("slow", json::object(), options, result.handler());
        REQUIRE(run_until(h.io, [&] { return result.done(); }));
        CHECK(result.failed_with<request_timeout>());
        CHECK(result.error_message().find("'slow'") != std::string::npos);
        const auto cancels = h.sent_notifications("notifications/cancelled");
        REQUIRE(cancels.size() == 1);
        CHECK(cancels[0].params["requestId"] == to_json(h.sent_of<request>().at(0).id));
        CHECK(h.d->pending_requests() == 0);
    }

    TEST_CASE("a late response after a timeout is dropped") {
        harness h;
        outcome<json> result;
        request_options options;
        options.timeout = 20ms;
        h.d->send_request("slow", nullptr, options, result.handler());
        REQUIRE(run_until(h.io, [&] { return result.done(); }));
        h.d->receive(message(response{h.sent_of<request>().at(0).id, json::object()}));
        run_for(h.io, 20ms);
        CHECK(result.failed_with<request_timeout>());
    }

    TEST_CASE("cancelling through the token fails the request and sends notifications/cancelled") {
        harness h;
        outcome<json> result;
        cancellation_source source;
        request_options options;
        options.cancellation = source.token();
        h.d->send_request("long", json::object(), options, result.handler());
        CHECK(source.cancel("user pressed stop"));
        REQUIRE(run_until(h.io, [&] { return result.done(); }));
        CHECK(result.failed_with<request_cancelled>());
        const auto cancels = h.sent_notifications("notifications/cancelled");
        REQUIRE(cancels.size() == 1);
        CHECK(cancels[0].params["reason"] == "user pressed stop");
    }

    TEST_CASE("progress notifications reach the caller of the request they name") {
        harness h;
        outcome<json> result;
        recorder<progress_update> updates;
        request_options options;
        options.on_progress = [updates](const progress_update& update) { updates.add(update); };
        h.d->send_request("work", json{{"x", 1}}, options, result.handler());
        const auto req = h.sent_of<request>().at(0);
        const auto token = req.params["_meta"]["progressToken"];
        CHECK(token == to_json(req.id));
        CHECK(req.params["x"] == 1);
        h.d->receive(message(notification{
            "notifications/progress", {{"progressToken", token}, {"progress", 1}, {"total", 4}}}));
        h.d->receive(message(notification{"notifications/progress",
                                          {{"progressToken", 999}, {"progress", 2}}}));  // not ours
        h.d->receive(message(
            notification{"notifications/progress",
                         {{"progressToken", token}, {"progress", 2}, {"message", "halfway"}}}));
        h.d->receive(message(response{req.id, json::object()}));
        REQUIRE(run_until(h.io, [&] { return result.done(); }));
        const auto seen = updates.items();
        REQUIRE(seen.size() == 2);
        CHECK(seen[0].progress == 1);
        CHECK(seen[0].total == 4);
        CHECK(seen[1].message == "halfway");
    }

    TEST_CASE("a request without on_progress carries no progress token") {
        harness h;
        h.d->send_request("plain", json::object(), {}, [](std::exception_ptr, json) {});
        CHECK_FALSE(h.sent_of<request>().at(0).params.contains("_meta"));
    }

    TEST_CASE("progress can keep a request alive past its timeout") {
        harness h;
        outcome<json> result;
        request_options options;
        options.timeout = 80ms;
        options.progress_resets_timeout = true;
        options.on_progress = [](const progress_update&) {};
        h.d->send_request("work", nullptr, options, result.handler());
        const auto req = h.sent_of<request>().at(0);
        for (int i = 0; i < 4; ++i) {
            run_for(h.io, 40ms);
            h.d->receive(message(notification{
                "notifications/progress", {{"progressToken", to_json(req.id)}, {"progress", i}}}));
        }
        CHECK_FALSE(result.done());
        h.d->receive(message(response{req.id, json{{"ok", true}}}));
        REQUIRE(run_until(h.io, [&] { return result.done(); }));
        CHECK_FALSE(result.error());
    }

    TEST_CASE("closing fails pending requests with the reason and refuses new ones") {
        harness h;
        outcome<json> pending, later;
        h.d->send_request("a", nullptr, {}, pending.handler());
        h.d->close("the server exited with status 3");
        h.d->send_request("b", nullptr, {}, later.handler());
        REQUIRE(run_until(h.io, [&] { return pending.done() && later.done(); }));
        CHECK(pending.failed_with<connection_closed>());
        CHECK(pending.error_message().find("exited with status 3") != std::string::npos);
        CHECK(later.failed_with<connection_closed>());
        CHECK(h.sent_of<request>().size() == 1);
    }

    TEST_CASE("a send function that throws fails the request with connection_closed") {
        boost::asio::io_context io;
        auto d = dispatcher::create(io, [](message) { throw std::runtime_error("pipe is gone"); });
        outcome<json> result;
        d->send_request("a", nullptr, {}, result.handler());
        REQUIRE(run_until(io, [&] { return result.done(); }));
        CHECK(result.failed_with<connection_closed>());
        CHECK(result.error_message().find("pipe is gone") != std::string::npos);
    }

    TEST_CASE("routes incoming requests to handlers that may answer later from another thread") {
        harness h;
        std::thread worker;
        h.d->on_request("echo", [&worker](const incoming_request& req, responder answer) {
            worker = std::thread([answer, params = req.params] {
                std::this_thread::sleep_for(10ms);
                answer.reply(params);
            });
        });
        h.d->receive(message(request{std::string("r1"), "echo", json{{"v", 1}}}));
        REQUIRE(h.wait_sent(1));
        worker.join();
        const auto replies = h.sent_of<response>();
        REQUIRE(replies.size() == 1);
        CHECK(replies[0].id == request_id(std::string("r1")));
        CHECK(replies[0].result == json{{"v", 1}});
        CHECK(h.d->active_incoming_requests() == 0);
    }

    TEST_CASE("an unknown method is answered -32601") {
        harness h;
        h.d->receive(message(request{id_of(5), "no/such", nullptr}));
        const auto errors = h.sent_of<error_response>();
        REQUIRE(errors.size() == 1);
        CHECK(errors[0].id == id_of(5));
        CHECK(errors[0].error.code == error_code::method_not_found);
        CHECK(errors[0].error.message.find("no/such") != std::string::npos);
    }

    TEST_CASE("a handler's jsonrpc_error keeps its code, message and data") {
        harness h;
        h.d->on_request("m", [](const incoming_request&, responder) {
            throw jsonrpc_error(-32602, "bad cursor", json{{"cursor", "x"}});
        });
        h.d->receive(message(request{id_of(1), "m", nullptr}));
        const auto errors = h.sent_of<error_response>();
        REQUIRE(errors.size() == 1);
        CHECK(errors[0].error == error_object{-32602, "bad cursor", json{{"cursor", "x"}}});
    }

    TEST_CASE("any other exception from a handler becomes -32603 with its message") {
        harness h;
        h.d->on_request("std", [](const incoming_request&, responder) {
            throw std::runtime_error("disk full");
        });
        h.d->on_request("other", [](const incoming_request&, responder) { throw 42; });
        h.d->receive(message(request{id_of(1), "std", nullptr}));
        h.d->receive(message(request{id_of(2), "other", nullptr}));
        const auto errors = h.sent_of<error_response>();
        REQUIRE(errors.size() == 2);
        CHECK(errors[0].error == error_object{error_code::internal_error, "disk full", nullptr});
        CHECK(errors[1].error.code == error_code::internal_error);
        CHECK(errors[1].error.message == "unknown exception");
    }

    TEST_CASE("reply_exception applies the same mapping for asynchronous failures") {
        harness h;
        h.d->on_request("m", [](const incoming_request&, responder answer) {
            answer.reply_exception(std::make_exception_ptr(jsonrpc_error(-32000, "custom")));
        });
        h.d->receive(message(request{id_of(1), "m", nullptr}));
        CHECK(h.sent_of<error_response>().at(0).error.code == -32000);
    }

    TEST_CASE("a responder answers exactly once") {
        harness h;
        h.d->on_request("m", [](const incoming_request&, responder answer) {
            answer.reply(json{{"n", 1}});
            answer.reply(json{{"n", 2}});
            answer.reply_error({-1, "late", nullptr});
        });
        h.d->receive(message(request{id_of(1), "m", nullptr}));
        CHECK(h.sent.size() == 1);
        CHECK(h.sent_of<response>().at(0).result == json{{"n", 1}});
    }

    TEST_CASE("a handler that drops its responder without answering yields -32603") {
        harness h;
        h.d->on_request("m", [](const incoming_request&, responder) {});
        h.d->receive(message(request{id_of(1), "m", nullptr}));
        const auto errors = h.sent_of<error_response>();
        REQUIRE(errors.size() == 1);
        CHECK(errors[0].error.code == error_code::internal_error);
        CHECK(errors[0].error.message.find("without replying") != std::string::npos);
    }

    TEST_CASE("notifications/cancelled fires the handler's token and suppresses the answer") {
        harness h;
        std::optional<responder> kept;
        recorder<std::string> reasons;
        std::vector<cancellation_registration> registrations;
        h.d->on_request("long", [&](const incoming_request& req, responder answer) {
            kept = answer;
            registrations.push_back(req.cancellation.on_cancel(
                [reasons](const std::string& reason) { reasons.add(reason); }));
        });
        h.d->receive(message(request{id_of(7), "long", nullptr}));
        h.d->receive(message(notification{"notifications/cancelled",
                                          {{"requestId", 7}, {"reason", "user aborted"}}}));
        REQUIRE(reasons.size() == 1);
        CHECK(reasons.items()[0] == "user aborted");
        kept->reply(json::object());
        CHECK(h.sent.size() == 0);
        CHECK(h.d->active_incoming_requests() == 0);
    }

    TEST_CASE("closing cancels the tokens of requests in progress") {
        harness h;
        cancellation_token token;
        std::optional<responder> kept;
        h.d->on_request("long", [&](const incoming_request& req, responder answer) {
            token = req.cancellation;
            kept = answer;
        });
        h.d->receive(message(request{id_of(1), "long", nullptr}));
        CHECK_FALSE(token.cancelled());
        h.d->close("stdin reached end of file");
        CHECK(token.cancelled());
        CHECK(token.reason().find("stdin reached end of file") != std::string::npos);
    }

    TEST_CASE("a request id already in progress is refused") {
        harness h;
        std::vector<responder> kept;
        h.d->on_request("long",
                        [&](const incoming_request&, responder answer) { kept.push_back(answer); });
        h.d->receive(message(request{id_of(1), "long", nullptr}));
        h.d->receive(message(request{id_of(1), "long", nullptr}));
        const auto errors = h.sent_of<error_response>();
        REQUIRE(errors.size() == 1);
        CHECK(errors[0].error.code == error_code::invalid_request);
    }

    TEST_CASE("report_progress sends progress only when the request asked for it") {
        harness h;
        h.d->on_request("work", [](const incoming_request&, responder answer) {
            answer.report_progress({1, 2.0, "step"});
            answer.reply(json::object());
            answer.report_progress({2, 2.0, "after the answer"});
        });
        h.d->receive(message(request{id_of(1), "work", nullptr}));
        h.d->receive(message(request{id_of(2), "work", json{{"_meta", {{"progressToken", "t"}}}}}));
        const auto progress = h.sent_notifications("notifications/progress");
        REQUIRE(progress.size() == 1);
        CHECK(progress[0].params ==
              json{{"progressToken", "t"}, {"progress", 1.0}, {"total", 2.0}, {"message", "step"}});
    }

    TEST_CASE("undecodable input is answered, except when it looked like a response") {
        harness h;
        h.d->receive(decode("{oops"));
        h.d->receive(decode(R"({"jsonrpc":"1.0","id":3,"method":"m"})"));
        h.d->receive(
            decode(R"({"jsonrpc":"2.0","id":3,"result":1,"error":{"code":1,"message":"x"}})"));
        const auto errors = h.sent_of<error_response>();
        REQUIRE(errors.size() == 2);
        CHECK(errors[0].error.code == error_code::parse_error);
        CHECK_FALSE(errors[0].id.has_value());
        CHECK(errors[1].error.code == error_code::invalid_request);
        CHECK(errors[1].id == id_of(3));
    }

    TEST_CASE("notification handlers run, and their exceptions stay inside the dispatcher") {
        harness h;
        recorder<json> seen;
        h.d->on_notification("notifications/message", [seen](const notification& note) {
            seen.add(note.params);
            throw std::runtime_error("handler bug");
        });
        CHECK_NOTHROW(h.d->receive(message(notification{"notifications/message", {{"x", 1}}})));
        CHECK_NOTHROW(h.d->receive(message(notification{"unknown/notification", nullptr})));
        CHECK(seen.size() == 1);
        CHECK(h.sent.size() == 0);
    }

    TEST_CASE("a completion handler that throws is logged and does not escape io_context::run") {
        harness h;
        bool ran = false;
        h.d->send_request("a", nullptr, {}, [&ran](std::exception_ptr, json) {
            ran = true;
            throw std::runtime_error("callback bug");
        });
        h.d->receive(message(response{h.sent_of<request>().at(0).id, json::object()}));
        CHECK_NOTHROW(run_until(h.io, [&] { return ran; }));
    }

    TEST_CASE("destroying the dispatcher fails what is pending") {
        boost::asio::io_context io;
        outcome<json> result;
        {
            auto d = dispatcher::create(io, [](message) {});
            d->send_request("a", nullptr, {}, result.handler());
        }
        REQUIRE(run_until(io, [&] { return result.done(); }));
        CHECK(result.failed_with<connection_closed>());
    }
}
