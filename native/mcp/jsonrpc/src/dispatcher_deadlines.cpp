// How the dispatcher's own requests end without a normal answer: their deadlines (the timeout
// restarted by signs of life, and the total limit) and unreadable answers.
#include <boost/asio/post.hpp>

#include "dispatcher_state.hpp"
#include "ipybox/mcp/jsonrpc/errors.hpp"

namespace ipybox::mcp::jsonrpc {
namespace {

using clock = std::chrono::steady_clock;

const std::string cancelled_method = "notifications/cancelled";

std::string millis(std::chrono::milliseconds duration) {
    return std::to_string(duration.count()) + " ms";
}

// "Parse error: invalid UTF-8 at byte 9" -> "invalid UTF-8 at byte 9".
std::string reason_of(const error_object& error) {
    for (const std::string_view prefix : {"Parse error: ", "Invalid Request: "}) {
        if (error.message.rfind(prefix, 0) == 0) return error.message.substr(prefix.size());
    }
    return error.message;
}

}  // namespace

// The timer fires at the nearer of the two deadlines; on_timer decides whether either has really
// passed (activity is recorded without touching the timers, so the idle deadline may have moved).
// Caller holds the mutex.
void dispatcher::arm_timer(std::int64_t id) {
    auto& entry = impl_->outgoing.at(id);
    if (!entry.timer) return;
    const auto generation = ++entry.generation;
    auto deadline = clock::time_point::max();
    if (entry.timeout.count() > 0) deadline = impl_->quiet_since(entry) + entry.timeout;
    if (entry.max_duration.count() > 0) {
        deadline = std::min(deadline, entry.started + entry.max_duration);
    }
    entry.timer->expires_at(deadline);
    entry.timer->async_wait(
        [weak = weak_from_this(), id, generation](const boost::system::error_code& error) {
            if (error == boost::asio::error::operation_aborted) return;
            if (auto self = weak.lock()) self->on_timer(id, generation);
        });
}

void dispatcher::note_activity() {
    const auto now = clock::now().time_since_epoch().count();
    impl_->last_activity.store(now, std::memory_order_relaxed);
    auto none = clock::rep{0};
    impl_->transit_started.compare_exchange_strong(none, now, std::memory_order_relaxed);
}

clock::time_point dispatcher::impl::quiet_since(const pending& entry) const {
    const clock::time_point began{clock::duration(transit_started.load(std::memory_order_relaxed))};
    if (!entry.activity_resets_timeout || began == clock::time_point{}) return entry.quiet_since;
    // A message that began after the request had been quiet too long cannot save it: that is
    // how a peer sending one trickled notification after another is still noticed.
    if (entry.timeout.count() > 0 && began > entry.quiet_since + entry.timeout) {
        return entry.quiet_since;
    }
    const clock::time_point active{clock::duration(last_activity.load(std::memory_order_relaxed))};
    return std::max(entry.quiet_since, active);
}

void dispatcher::end_transit() {
    if (impl_->transit_started.exchange(0, std::memory_order_relaxed) == 0) return;
    std::lock_guard lock(impl_->mutex);
    for (const auto& [id, entry] : impl_->outgoing) {
        if (entry.activity_resets_timeout) arm_timer(id);
    }
}

void dispatcher::on_timer(std::int64_t id, std::uint64_t generation) {
    impl::pending entry;
    bool total_limit = false;
    {
        std::lock_guard lock(impl_->mutex);
        const auto found = impl_->outgoing.find(id);
        if (found == impl_->outgoing.end() || found->second.generation != generation) return;
        auto& current = found->second;
        const auto now = clock::now();
        const bool quiet_too_long =
            current.timeout.count() > 0 && now >= impl_->quiet_since(current) + current.timeout;
        // The total limit is named only when something kept the request alive up to it.
        total_limit = !quiet_too_long && current.max_duration.count() > 0 &&
                      now >= current.started + current.max_duration;
        if (!quiet_too_long && !total_limit) {
            arm_timer(id);
            return;
        }
        entry = std::move(current);
        impl_->outgoing.erase(found);
    }
    const auto& peer = impl_->options.peer;
    const auto which = "'" + entry.method + "' (request " + std::to_string(id) + ") to " + peer;
    const auto limit = total_limit ? entry.max_duration : entry.timeout;
    const auto why = total_limit ? "no complete answer within its total limit of " + millis(limit)
                                 : "no answer within " + millis(limit);
    impl_->log->info("{}: {} got {}", impl_->options.name, which, why);
    send_quietly(notification{cancelled_method, {{"requestId", id}, {"reason", "timed out"}}});
    abandon(id);
    const auto advice = total_limit ? " (it kept the request alive with data or progress but never "
                                      "finished it; raise the total limit if that is expected)"
                                    : " (raise the timeout if the operation is expected to take "
                                      "longer)";
    auto error = std::make_exception_ptr(request_timeout(
        entry.method, limit, which + " got " + why + "; the request was cancelled" + advice));
    detail::post_completion(io_, std::move(entry.done), std::move(error), nullptr);
}

void dispatcher::abandon(std::int64_t id) {
    if (!impl_->options.on_abandon) return;
    try {
        impl_->options.on_abandon(id);
    } catch (const std::exception& error) {
        impl_->log->error("{}: the abandon hook threw: {}", impl_->options.name, error.what());
    }
}

void dispatcher::fail_unreadable_answer(const decode_failure& failure) {
    const auto& log = impl_->log;
    const auto& name = impl_->options.name;
    const auto& peer = impl_->options.peer;
    const auto reason = reason_of(failure.error);
    const std::string problem = failure.error.code == error_code::parse_error
                                    ? "its answer could not be read: "
                                    : "its answer is not a valid JSON-RPC response: ";
    if (failure.id) {
        const auto* number = std::get_if<std::int64_t>(&*failure.id);
        std::string method;
        {
            std::lock_guard lock(impl_->mutex);
            const auto found = number ? impl_->outgoing.find(*number) : impl_->outgoing.end();
            if (found != impl_->outgoing.end()) method = found->second.method;
        }
        if (method.empty()) {
            log->warn("{}: dropping an unusable answer to request {}, which is not pending: {}",
                      name, to_string(*failure.id), reason);
            return;
        }
        log->warn("{}: the answer to '{}' (request {}) is unusable: {}", name, method, *number,
                  reason);
        fail_pending(*number,
                     std::make_exception_ptr(
                         unreadable_answer(method, reason,
                                           "'" + method + "' (request " + std::to_string(*number) +
                                               ") to " + peer + " failed: " + problem + reason)),
                     false, {});
        return;
    }
    // No id: nothing says which request it answers, and every one pending shares the channel.
    std::map<std::int64_t, impl::pending> outgoing;
    {
        std::lock_guard lock(impl_->mutex);
        outgoing.swap(impl_->outgoing);
    }
    log->warn("{}: an answer without a readable id is unusable ({}); failing {} pending request(s)",
              name, reason, outgoing.size());
    for (auto& [id, entry] : outgoing) {
        auto error = std::make_exception_ptr(unreadable_answer(
            entry.method, reason,
            "'" + entry.method + "' (request " + std::to_string(id) + ") to " + peer +
                " failed: an answer arrived that names no request it answers, and " + problem +
                reason + "; every request pending on the connection failed with it"));
        detail::post_completion(io_, std::move(entry.done), std::move(error), nullptr);
    }
}

}  // namespace ipybox::mcp::jsonrpc
