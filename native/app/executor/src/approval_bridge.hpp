#pragma once
// Connects approval requests to the execution stream the application consumes: a request
// becomes an approval_request event of the current stream, and the stream's timeout clock stops
// while any request waits. Asynchronous: ask() returns at once, and the decision reaches its
// handler when the consumer calls accept()/reject(), when the approval timeout passes (a timer
// on the loop), or when the execution ends (detach()).
//
// Thread-safety: ask() from any thread; attach/detach/pop on the consumer's; accept()/reject()
// from anywhere. Objects a request holds on to are shared, so a decision made after the bridge
// is gone reaches its handler and touches nothing else.
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "ipybox/approval/gate.hpp"
#include "ipybox/approval_request.hpp"

namespace ipybox {

struct approval_request::state {
    approval::request what;
    std::mutex mutex;
    approval::decision_handler done;                    // empty once settled
    std::shared_ptr<boost::asio::steady_timer> expiry;  // the approval timeout, if any
    std::function<void(const state*)> forget;           // takes it off the bridge's lists

    // The first settle passes its decision on; later ones do nothing.
    void settle(approval::decision decision);
};

namespace app {

// What the bridge needs from the stream it feeds.
struct stream_hooks {
    std::function<void()> pause_timeout;
    std::function<void()> resume_timeout;
    std::function<void()> wake;  // makes the consumer look at pending requests
};

class approval_bridge {
  public:
    // `timeout`: how long a request may wait for its decision (none: no limit). Timers run on
    // `io`, which must outlive the bridge.
    approval_bridge(boost::asio::io_context& io, std::optional<std::chrono::milliseconds> timeout);
    ~approval_bridge();  // detach()

    // Queues `what` for the attached stream and returns; `done` gets the decision. Outside an
    // execution (before open(), after detach()) it is rejected at once: nobody is there to ask.
    void ask(approval::request what, approval::decision_handler done);

    // An execution is about to start: requests from here on are queued for it. Called before the
    // code is sent to the kernel, whose first request can arrive before attach().
    void open();
    // Routes requests to the execution's stream (also those queued since open()).
    void attach(const stream_hooks& hooks);
    // Stops routing; requests still waiting are rejected ("the execution ended").
    void detach();
    // The next request for the attached stream, if any.
    std::optional<approval_request> pop();

  private:
    struct lists;  // shared with the requests, which take themselves off when settled

    boost::asio::io_context& io_;
    std::optional<std::chrono::milliseconds> timeout_;
    std::shared_ptr<lists> lists_;
};

}  // namespace app
}  // namespace ipybox
