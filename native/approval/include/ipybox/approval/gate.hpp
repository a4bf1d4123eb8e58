#pragma once
// The approval gate: every request from kernel code that needs the host's consent (a tool call,
// a shell command, a save into the user library: request.hpp) waits here for a decision before
// anything happens (ARCHITECTURE.md, security property 4).
//
// Asynchronous: decide() starts the decision and returns; the decision arrives through a
// callback, from whichever thread made it (a front end's answer, a timer, a policy at once).
// Nothing waits in a thread while a person thinks.
#include <functional>
#include <string>

#include "ipybox/approval/request.hpp"

namespace ipybox::approval {

enum class verdict { approved, rejected, timed_out };

struct decision {
    verdict outcome = verdict::approved;
    std::string reason;  // shown to the kernel code when not approved

    static decision approve() { return {verdict::approved, {}}; }
    static decision reject(std::string why) { return {verdict::rejected, std::move(why)}; }
};

using decision_handler = std::function<void(decision)>;

class gate {
  public:
    virtual ~gate() = default;
    // Calls `done` exactly once with the decision about `what`: possibly before decide()
    // returns, possibly later from another thread. Must not block, must not throw once it has
    // taken `done` (a failure to decide is a rejection with a reason).
    // Thread-safety: may be called from several threads at once.
    virtual void decide(const request& what, decision_handler done) = 0;
};

// Approves everything at once: the default of execute() and of the MCP server, as in the
// reference.
class approve_all : public gate {
  public:
    void decide(const request&, decision_handler done) override { done(decision::approve()); }
};

}  // namespace ipybox::approval
