#pragma once
// Which requests of a code_executor's kernel are asked, and how: the one place the executor's
// approval wiring lives (the tool server asks this gate about everything).
//   - a tool call passes at once when tool-call approval is off; otherwise it gets its Python
//     name (tool_name_index.hpp, so that rules and questions can use it) and is asked through
//     the bridge, that is, by the stream's consumer;
//   - a shell command is asked (the tool server takes them only when shell-command approval is
//     on, whatever tool-call approval says);
//   - a save into the user library is always asked: what a sandboxed kernel saves there runs
//     later in other projects' kernels, so it never passes unasked (in `ipybox run` the terminal
//     asks; through the C++ API the stream yields an approval_request; `ipybox mcp`'s policy
//     asks unless a rule names the save exactly).
//
// Thread-safety: decide() from any thread; it never blocks. A decision that arrives after the
// bridge is gone is a rejection.
#include <memory>

#include "approval_bridge.hpp"
#include "ipybox/approval/gate.hpp"
#include "tool_name_index.hpp"

namespace ipybox::app {

class executor_gate : public approval::gate {
  public:
    executor_gate(const std::shared_ptr<approval_bridge>& bridge, tool_name_index& names,
                  bool ask_tool_calls)
        : bridge_(bridge), names_(names), ask_tool_calls_(ask_tool_calls) {}

    void decide(const approval::request& what, approval::decision_handler done) override;

  private:
    std::weak_ptr<approval_bridge> bridge_;
    tool_name_index& names_;
    bool ask_tool_calls_;
};

}  // namespace ipybox::app
