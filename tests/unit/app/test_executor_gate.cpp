// What the executor's gate asks and what it lets pass (executor_gate.hpp): saves into the user
// library are asked whatever tool-call approval says; tool calls pass when it is off.
#include <doctest/doctest.h>

#include <boost/asio/io_context.hpp>
#include <future>

#include "approval_bridge.hpp"
#include "executor_gate.hpp"
#include "mcp_client_pool.hpp"
#include "tool_name_index.hpp"

using ipybox::app::approval_bridge;
using ipybox::app::executor_gate;
using ipybox::approval::decision;
using ipybox::approval::verdict;

namespace {

struct fixture {
    boost::asio::io_context io;
    ipybox::app::mcp_client_pool pool{io, {}};
    ipybox::app::tool_name_index names{pool};
    std::shared_ptr<approval_bridge> bridge = std::make_shared<approval_bridge>(io, std::nullopt);

    fixture() {
        bridge->open();
        bridge->attach({[] {}, [] {}, [] {}});
    }
    // Asks `gate` about `what`; nullopt while the decision is still open.
    std::optional<decision> ask(executor_gate& gate, const ipybox::approval::request& what) {
        std::optional<decision> got;
        gate.decide(what, [&got](decision d) { got = std::move(d); });
        return got;
    }
};

const ipybox::approval::tool_call named_call{"everything", "echo", {}, "echo"};
const ipybox::approval::save_action save{"text", "shout", {}, std::nullopt, false};

}  // namespace

TEST_SUITE("app.executor_gate") {
    TEST_CASE("with tool-call approval off, calls pass but a save is still asked") {
        fixture f;
        executor_gate gate(f.bridge, f.names, false);
        const auto passed = f.ask(gate, named_call);
        REQUIRE(passed);
        CHECK(passed->outcome == verdict::approved);
        CHECK_FALSE(f.bridge->pop());  // nobody was asked

        CHECK_FALSE(f.ask(gate, save));  // waits for the stream's consumer
        auto request = f.bridge->pop();
        REQUIRE(request);
        CHECK(request->is_library_save());
        request->reject("no");
    }

    TEST_CASE("with tool-call approval on, a named call and a shell command are asked") {
        fixture f;
        executor_gate gate(f.bridge, f.names, true);
        CHECK_FALSE(f.ask(gate, named_call));
        CHECK(f.bridge->pop()->as_tool_call()->python_name == "echo");
        CHECK_FALSE(f.ask(gate, ipybox::approval::shell_command{}));
        CHECK(f.bridge->pop()->is_shell_command());
    }

    TEST_CASE("once the bridge is gone every request is rejected, none waits") {
        fixture f;
        executor_gate gate(f.bridge, f.names, true);
        f.bridge.reset();
        const auto got = f.ask(gate, save);
        REQUIRE(got);
        CHECK(got->outcome == verdict::rejected);
        CHECK(got->reason == "ipybox is stopping");
    }
}
