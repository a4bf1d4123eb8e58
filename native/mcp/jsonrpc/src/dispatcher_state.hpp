#pragma once
// Private state shared by dispatcher.cpp and responder.cpp.
#include <spdlog/logger.h>

#include <atomic>
#include <boost/asio/steady_timer.hpp>
#include <map>
#include <memory>
#include <mutex>

#include "ipybox/mcp/jsonrpc/dispatcher.hpp"

namespace ipybox::mcp::jsonrpc {
namespace detail {

// One incoming request, shared by all copies of its responder.
struct incoming_state {
    std::weak_ptr<dispatcher> owner;
    request_id id;
    std::string method;
    json progress_token;  // null when the peer did not ask for progress
    std::shared_ptr<spdlog::logger> log;
    std::atomic<bool> finished{false};

    ~incoming_state();
};

// Runs `done` later on `io`, never inside the call that settles it; a throw is logged.
void post_completion(boost::asio::io_context& io, completion<json> done, std::exception_ptr error,
                     json result);

// The mapping from a handler's exception to the error a peer receives.
error_object error_from_exception(std::exception_ptr error);
std::string describe_exception(std::exception_ptr error);

}  // namespace detail

struct dispatcher::impl {
    struct pending {
        std::string method;
        completion<json> done;
        std::function<void(const progress_update&)> on_progress;
        std::unique_ptr<boost::asio::steady_timer> timer;  // null: neither timeout nor limit
        std::chrono::milliseconds timeout{0};
        std::chrono::milliseconds max_duration{0};
        std::chrono::steady_clock::time_point started;
        std::chrono::steady_clock::time_point quiet_since;  // the timeout counts from here
        bool progress_resets_timeout = false;
        bool activity_resets_timeout = false;
        std::uint64_t generation = 0;  // bumped on each arming; stale timer callbacks compare it
        cancellation_registration cancel_registration;
    };

    send_function send;
    dispatcher_options options;
    std::shared_ptr<spdlog::logger> log;

    mutable std::mutex mutex;
    bool closed = false;
    std::string close_reason;
    std::int64_t next_id = 1;
    std::map<std::string, request_handler> request_handlers;
    std::map<std::string, notification_handler> notification_handlers;
    std::map<std::int64_t, pending> outgoing;
    std::map<request_id, cancellation_source> incoming;
    // steady_clock ticks of the last note_activity(), and of the first since the last complete
    // message (zero: no message in transit). See quiet_since().
    std::atomic<std::chrono::steady_clock::rep> last_activity{0};
    std::atomic<std::chrono::steady_clock::rep> transit_started{0};

    // Since when `entry` counts as quiet: its last real sign of life, or later while bytes of a
    // message that may be its answer are still arriving (request_options::
    // activity_resets_timeout). Caller holds the mutex.
    std::chrono::steady_clock::time_point quiet_since(const pending& entry) const;
};

}  // namespace ipybox::mcp::jsonrpc
