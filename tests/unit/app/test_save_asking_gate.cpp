// The tool server's gate for a sandboxed kernel with tool-call approval off: saves into the user
// library are asked, everything else passes as the calls' gate decides.
#include <doctest/doctest.h>

#include "approval_bridge.hpp"
#include "ipybox/toolserver/routes.hpp"
#include "save_asking_gate.hpp"

namespace {

struct counting_gate : ipybox::approval::gate {
    ipybox::approval::verdict answer;
    int asked = 0;
    explicit counting_gate(ipybox::approval::verdict v) : answer(v) {}
    ipybox::approval::decision decide(const ipybox::approval::tool_call&) override {
        ++asked;
        return {answer, {}};
    }
};

}  // namespace

TEST_SUITE("app.save_asking_gate") {
    TEST_CASE("a save into the user library goes to the asking gate, a tool call does not") {
        counting_gate calls(ipybox::approval::verdict::approved);
        counting_gate asking(ipybox::approval::verdict::rejected);
        ipybox::app::save_asking_gate gate(calls, asking);
        const ipybox::approval::tool_call save{ipybox::toolserver::shell_server_name,
                                               ipybox::toolserver::save_gentool_tool_name,
                                               {{"category", "text"}}};
        CHECK(gate.decide(save).outcome == ipybox::approval::verdict::rejected);
        CHECK(asking.asked == 1);
        CHECK(calls.asked == 0);
        const ipybox::approval::tool_call echo{"everything", "echo", {{"message", "hi"}}};
        CHECK(gate.decide(echo).outcome == ipybox::approval::verdict::approved);
        CHECK(calls.asked == 1);
    }

    TEST_CASE(
        "with approval off, the bridge approves calls but a save is asked and, unanswered, "
        "refused") {
        // The control: the bridge with approval off approves whatever it is given.
        ipybox::app::approval_bridge bridge(false, std::chrono::milliseconds(50));
        const ipybox::approval::tool_call save{ipybox::toolserver::shell_server_name,
                                               ipybox::toolserver::save_gentool_tool_name,
                                               {{"category", "text"}}};
        CHECK(bridge.decide(save).outcome == ipybox::approval::verdict::approved);
        ipybox::app::save_asking_gate gate(bridge, bridge.asking_gate());
        // Outside an execution nobody is there to ask: refused, never approved.
        CHECK(gate.decide(save).outcome != ipybox::approval::verdict::approved);
        const ipybox::approval::tool_call echo{"everything", "echo", {}};
        CHECK(gate.decide(echo).outcome == ipybox::approval::verdict::approved);
    }
}
