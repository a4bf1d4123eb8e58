// The approval bridge between the tool server's requests and the stream that the application
// consumes: what happens to a request before, during and after an execution, and that nothing
// waits in a thread meanwhile.
#include <doctest/doctest.h>

#include <atomic>
#include <future>
#include <optional>
#include <thread>

#include "approval_bridge.hpp"
#include "running_loop.hpp"

using ipybox::app::approval_bridge;
using ipybox::app::stream_hooks;
using ipybox::approval::decision;
using ipybox::approval::verdict;
using namespace std::chrono_literals;

namespace {

const ipybox::approval::tool_call call{"everything", "echo", {{"message", "hi"}}};

struct counting_hooks {
    std::atomic<int> paused{0}, resumed{0}, woken{0};
    stream_hooks hooks() {
        return {[this] { ++paused; }, [this] { ++resumed; }, [this] { ++woken; }};
    }
};

// The decision a request gets, whenever it comes.
struct outcome {
    std::promise<decision> promise;
    std::future<decision> future = promise.get_future();
    ipybox::approval::decision_handler handler() {
        return [this](decision d) { promise.set_value(std::move(d)); };
    }
    bool ready() { return future.wait_for(0s) == std::future_status::ready; }
};

}  // namespace

TEST_SUITE("app.approval_bridge") {
    TEST_CASE("outside an execution a request is rejected at once") {
        boost::asio::io_context io;
        approval_bridge bridge(io, std::nullopt);
        outcome got;
        bridge.ask(call, got.handler());
        REQUIRE(got.ready());
        const auto d = got.future.get();
        CHECK(d.outcome == verdict::rejected);
        CHECK(d.reason == "no execution is running to approve it");
    }

    TEST_CASE("a request that arrives between open() and attach() waits for the stream") {
        // The kernel can ask before execute() has returned the stream the hooks belong to.
        boost::asio::io_context io;
        approval_bridge bridge(io, std::nullopt);
        counting_hooks counts;
        bridge.open();
        outcome got;
        bridge.ask(call, got.handler());  // returns at once: nothing waits in this thread
        CHECK_FALSE(got.ready());
        CHECK(counts.paused == 0);
        bridge.attach(counts.hooks());
        CHECK(counts.paused == 1);  // the clock stops for the request that was already waiting
        CHECK(counts.woken == 1);
        auto request = bridge.pop();
        REQUIRE(request);
        CHECK(request->as_tool_call()->tool_name == "echo");
        CHECK(request->as_shell_command() == nullptr);
        std::thread([&] { request->accept(); }).join();  // a front end on another thread
        REQUIRE(got.ready());
        CHECK(got.future.get().outcome == verdict::approved);
        CHECK(counts.resumed == 1);
        request->reject("too late");  // the first decision stands; this one goes nowhere
    }

    TEST_CASE("detach() rejects what still waits, and closes the bridge") {
        boost::asio::io_context io;
        approval_bridge bridge(io, std::nullopt);
        counting_hooks counts;
        bridge.open();
        bridge.attach(counts.hooks());
        outcome got;
        bridge.ask(call, got.handler());
        CHECK(counts.woken == 1);
        bridge.detach();
        REQUIRE(got.ready());
        const auto d = got.future.get();
        CHECK(d.outcome == verdict::rejected);
        CHECK(d.reason == "the execution ended");
        outcome after;
        bridge.ask(call, after.handler());
        CHECK(after.future.get().reason == "no execution is running to approve it");
    }

    TEST_CASE("a request nobody decides times out on the loop's timer") {
        ipybox::testing::running_loop loop;
        approval_bridge bridge(loop.io, 100ms);
        bridge.open();
        counting_hooks counts;
        bridge.attach(counts.hooks());
        outcome got;
        bridge.ask(ipybox::approval::shell_command{}, got.handler());
        REQUIRE(got.future.wait_for(30s) == std::future_status::ready);
        const auto d = got.future.get();
        CHECK(d.outcome == verdict::timed_out);
        CHECK(d.reason == "no decision within 100 ms");
        CHECK(counts.resumed == 1);
        // Control: a request decided in time is not touched by its timer.
        outcome decided;
        bridge.ask(call, decided.handler());
        bridge.pop()->accept();
        CHECK(decided.future.get().outcome == verdict::approved);
    }

    TEST_CASE("a decision made after the bridge is gone still reaches its handler") {
        boost::asio::io_context io;
        outcome got;
        std::optional<ipybox::approval_request> request;
        {
            approval_bridge bridge(io, std::nullopt);
            bridge.open();
            bridge.ask(call, got.handler());
            request = bridge.pop();
            REQUIRE(request);
        }  // the destructor detaches, which rejects
        REQUIRE(got.ready());
        CHECK(got.future.get().reason == "the execution ended");
        request->accept();  // nothing to do, and nothing touched
    }
}
