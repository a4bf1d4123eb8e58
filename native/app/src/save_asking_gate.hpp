#pragma once
// The tool server's gate for a sandboxed kernel when tool-call approval is off: tool calls pass
// as before, but a save into the user library (ipybox.save_gentool) is always asked. What a
// sandboxed kernel saves there runs later in other projects' kernels, sandboxed or not, so it
// never passes unasked (in `ipybox run` the terminal asks; through the C++ API the stream yields
// an approval_request).
#include <string_view>

#include "ipybox/approval/gate.hpp"
#include "ipybox/toolserver/routes.hpp"

namespace ipybox::app {

class save_asking_gate : public approval::gate {
  public:
    save_asking_gate(approval::gate& calls, approval::gate& asking)
        : calls_(calls), asking_(asking) {}

    approval::decision decide(const approval::tool_call& call) override {
        const bool save = call.server_name == toolserver::shell_server_name &&
                          call.tool_name == toolserver::save_gentool_tool_name;
        return save ? asking_.decide(call) : calls_.decide(call);
    }

  private:
    approval::gate& calls_;
    approval::gate& asking_;
};

}  // namespace ipybox::app
