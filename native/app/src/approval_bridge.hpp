#pragma once
// Connects the tool server's approval gate to the execution stream the application consumes:
// a call waiting for approval becomes an approval_request event of the current stream, and the
// stream's timeout clock stops while any call waits.
//
// Thread-safety: decide() runs on tool server threads; attach/detach/pop on the consumer's.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>

#include "ipybox/approval/gate.hpp"
#include "ipybox/approval_request.hpp"

namespace ipybox {

struct approval_request::state {
    approval::tool_call call;
    std::mutex mutex;
    std::condition_variable decided;
    std::optional<bool> approved;
    std::string reason;

    void settle(bool value, std::string why = {});
};

namespace app {

// What the bridge needs from the stream it feeds.
struct stream_hooks {
    std::function<void()> pause_timeout;
    std::function<void()> resume_timeout;
    std::function<void()> wake;  // makes the consumer look at pending requests
};

class approval_bridge : public approval::gate {
  public:
    // `enabled` false approves every tool call at once (approve_tool_calls = false).
    approval_bridge(bool enabled, std::optional<std::chrono::milliseconds> timeout);

    approval::decision decide(const approval::tool_call& call) override;
    // Asks the attached stream whatever `enabled` says. Shell-command approval uses it, so that
    // turning tool-call approval off does not silently approve shell commands too.
    approval::decision ask(const approval::tool_call& call);
    // A gate that always asks through this bridge (for the tool server's shell endpoint).
    approval::gate& asking_gate() { return asking_gate_; }

    // An execution is about to start: requests from here on are queued for it. Called before the
    // code is sent to the kernel, whose first request can arrive before attach().
    void open();
    // Routes requests to the execution's stream (also those queued since open()). Outside an
    // execution (before open(), after detach()) calls are rejected: nobody is there to ask.
    void attach(const stream_hooks& hooks);
    // Stops routing; requests still waiting are rejected ("the execution ended").
    void detach();
    // The next request for the attached stream, if any.
    std::optional<approval_request> pop();

  private:
    struct asking : approval::gate {
        explicit asking(approval_bridge& b) : bridge(b) {}
        approval::decision decide(const approval::tool_call& call) override {
            return bridge.ask(call);
        }
        approval_bridge& bridge;
    };

    bool enabled_;
    asking asking_gate_{*this};
    std::optional<std::chrono::milliseconds> timeout_;
    std::mutex mutex_;
    bool open_ = false;
    std::optional<stream_hooks> hooks_;
    std::deque<std::shared_ptr<approval_request::state>> queued_;
    std::vector<std::shared_ptr<approval_request::state>> waiting_;
};

}  // namespace app
}  // namespace ipybox
