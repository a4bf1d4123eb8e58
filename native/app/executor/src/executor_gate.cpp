#include "executor_gate.hpp"

namespace ipybox::app {
namespace {

void ask_through(const std::weak_ptr<approval_bridge>& weak, approval::request what,
                 approval::decision_handler done) {
    auto bridge = weak.lock();
    if (!bridge) return done(approval::decision::reject("ipybox is stopping"));
    bridge->ask(std::move(what), std::move(done));
}

}  // namespace

void executor_gate::decide(const approval::request& what, approval::decision_handler done) {
    const auto* call = std::get_if<approval::tool_call>(&what);
    if (!call) return ask_through(bridge_, what, std::move(done));
    if (!ask_tool_calls_) return done(approval::decision::approve());
    if (!call->python_name.empty()) return ask_through(bridge_, what, std::move(done));
    names_.async_python_name(
        call->server_name, call->tool_name,
        [named = *call, bridge = bridge_, done = std::move(done)](std::string python_name) mutable {
            named.python_name = std::move(python_name);
            ask_through(bridge, std::move(named), std::move(done));
        });
}

}  // namespace ipybox::app
