// The approval bridge between the tool server's threads and the stream that the application
// consumes: what happens to a request before, during and after an execution.
#include <doctest/doctest.h>

#include <atomic>
#include <future>
#include <thread>

#include "approval_bridge.hpp"

using ipybox::app::approval_bridge;
using ipybox::app::stream_hooks;
using namespace std::chrono_literals;

namespace {

const ipybox::approval::tool_call call{"everything", "echo", {{"message", "hi"}}};

struct counting_hooks {
    std::atomic<int> paused{0}, resumed{0}, woken{0};
    stream_hooks hooks() {
        return {[this] { ++paused; }, [this] { ++resumed; }, [this] { ++woken; }};
    }
};

// Polls `bridge` until a request is queued, then answers it.
void answer_next(approval_bridge& bridge, bool approve) {
    for (int i = 0; i < 500; ++i) {
        if (auto request = bridge.pop()) {
            approve ? request->accept() : request->reject("no");
            return;
        }
        std::this_thread::sleep_for(2ms);
    }
    FAIL("no request arrived");
}

}  // namespace

TEST_SUITE("app.approval_bridge") {
    TEST_CASE("outside an execution a request is rejected at once") {
        approval_bridge bridge(true, std::nullopt);
        const auto decision = bridge.decide(call);
        CHECK(decision.outcome == ipybox::approval::verdict::rejected);
        CHECK(decision.reason == "no execution is running to approve it");
    }

    TEST_CASE("a request that arrives between open() and attach() waits for the stream") {
        // The kernel can ask before execute() has returned the stream the hooks belong to.
        approval_bridge bridge(true, std::nullopt);
        counting_hooks counts;
        bridge.open();
        auto decision = std::async(std::launch::async, [&] { return bridge.decide(call); });
        std::this_thread::sleep_for(50ms);
        CHECK(counts.paused == 0);
        bridge.attach(counts.hooks());
        CHECK(counts.paused == 1);  // the clock stops for the request that was already waiting
        CHECK(counts.woken == 1);
        answer_next(bridge, true);
        CHECK(decision.get().outcome == ipybox::approval::verdict::approved);
        CHECK(counts.resumed == 1);
    }

    TEST_CASE("detach() rejects what still waits, and closes the bridge") {
        approval_bridge bridge(true, std::nullopt);
        counting_hooks counts;
        bridge.open();
        bridge.attach(counts.hooks());
        auto decision = std::async(std::launch::async, [&] { return bridge.decide(call); });
        while (counts.woken == 0) std::this_thread::sleep_for(1ms);
        bridge.detach();
        const auto outcome = decision.get();
        CHECK(outcome.outcome == ipybox::approval::verdict::rejected);
        CHECK(outcome.reason == "the execution ended");
        CHECK(bridge.decide(call).reason == "no execution is running to approve it");
    }

    TEST_CASE("with approval off, tool calls pass but ask() still asks (shell commands)") {
        approval_bridge bridge(false, 100ms);
        CHECK(bridge.decide(call).outcome == ipybox::approval::verdict::approved);
        bridge.open();
        counting_hooks counts;
        bridge.attach(counts.hooks());
        CHECK(bridge.ask(call).outcome == ipybox::approval::verdict::timed_out);
    }
}
