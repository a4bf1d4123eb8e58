#include "ipybox/mcp/jsonrpc/dispatcher.hpp"

#include <boost/asio/post.hpp>

#include "dispatcher_state.hpp"
#include "ipybox/core/log.hpp"
#include "ipybox/mcp/jsonrpc/errors.hpp"

namespace ipybox::mcp::jsonrpc {
namespace {

const std::string cancelled_method = "notifications/cancelled";

}  // namespace

// Completions always run later on the io_context, never inside the call that settles them.
void detail::post_completion(boost::asio::io_context& io, completion<json> done,
                             std::exception_ptr error, json result) {
    boost::asio::post(
        io, [done = std::move(done), error = std::move(error), result = std::move(result)] {
            try {
                done(error, result);
            } catch (...) {
                detail::report_handler_exception(std::current_exception());
            }
        });
}

std::shared_ptr<dispatcher> dispatcher::create(boost::asio::io_context& io, send_function send,
                                               dispatcher_options options) {
    return std::shared_ptr<dispatcher>(new dispatcher(io, std::move(send), std::move(options)));
}

dispatcher::dispatcher(boost::asio::io_context& io, send_function send, dispatcher_options options)
    : io_(io), impl_(std::make_unique<impl>()) {
    impl_->send = std::move(send);
    impl_->options = std::move(options);
    impl_->log = core::logger("mcp");
}

dispatcher::~dispatcher() {
    close("the dispatcher was destroyed");
}

void dispatcher::on_request(const std::string& method, request_handler handler) {
    std::lock_guard lock(impl_->mutex);
    impl_->request_handlers[method] = std::move(handler);
}

void dispatcher::on_notification(const std::string& method, notification_handler handler) {
    std::lock_guard lock(impl_->mutex);
    impl_->notification_handlers[method] = std::move(handler);
}

bool dispatcher::closed() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->closed;
}

std::size_t dispatcher::pending_requests() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->outgoing.size();
}

std::size_t dispatcher::active_incoming_requests() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->incoming.size();
}

void dispatcher::send_quietly(message msg) {
    const auto& log = impl_->log;
    if (log->should_log(spdlog::level::trace)) {
        log->trace("{} -> {}", impl_->options.name, encode(msg));
    }
    try {
        impl_->send(std::move(msg));
    } catch (const std::exception& error) {
        log->warn("{}: could not send a message: {}", impl_->options.name, error.what());
    }
}

void dispatcher::send_notification(const std::string& method, json params) {
    send_quietly(notification{method, std::move(params)});
}

void dispatcher::send_request(const std::string& method, json params, request_options options,
                              completion<json> done) {
    if (options.on_progress) {
        if (params.is_null()) params = json::object();
        if (!params.is_object()) {
            throw std::invalid_argument("progress needs object params (request '" + method + "')");
        }
    }
    const bool wants_progress = static_cast<bool>(options.on_progress);
    const auto timeout = options.timeout.value_or(impl_->options.default_timeout);
    const auto max_duration = options.max_duration.value_or(impl_->options.default_max_duration);
    std::int64_t id = 0;
    {
        std::unique_lock lock(impl_->mutex);
        if (impl_->closed) {
            auto error = std::make_exception_ptr(connection_closed(method, impl_->close_reason));
            lock.unlock();
            detail::post_completion(io_, std::move(done), std::move(error), nullptr);
            return;
        }
        id = impl_->next_id++;
        impl::pending entry;
        entry.method = method;
        entry.done = std::move(done);
        entry.on_progress = std::move(options.on_progress);
        entry.timeout = timeout;
        entry.max_duration = max_duration;
        entry.started = entry.quiet_since = std::chrono::steady_clock::now();
        entry.progress_resets_timeout = options.progress_resets_timeout;
        entry.activity_resets_timeout = options.activity_resets_timeout;
        if (timeout.count() > 0 || max_duration.count() > 0) {
            entry.timer = std::make_unique<boost::asio::steady_timer>(io_);
        }
        impl_->outgoing.emplace(id, std::move(entry));
        arm_timer(id);
    }
    if (wants_progress) params["_meta"]["progressToken"] = id;
    message msg = request{id, method, std::move(params)};
    if (impl_->log->should_log(spdlog::level::trace)) {
        impl_->log->trace("{} -> {}", impl_->options.name, encode(msg));
    }
    try {
        impl_->send(std::move(msg));
    } catch (const std::exception& error) {
        fail_pending(id, std::make_exception_ptr(connection_closed(method, error.what())), false,
                     {});
        return;
    }
    // Registered after sending, so that notifications/cancelled can never precede the request.
    auto registration = options.cancellation.on_cancel(
        [weak = weak_from_this(), id, method](const std::string& reason) {
            if (auto self = weak.lock()) {
                self->fail_pending(id, std::make_exception_ptr(request_cancelled(method, reason)),
                                   true, reason);
            }
        });
    std::lock_guard lock(impl_->mutex);
    if (const auto found = impl_->outgoing.find(id); found != impl_->outgoing.end()) {
        found->second.cancel_registration = std::move(registration);
    }
}

void dispatcher::fail_pending(std::int64_t id, std::exception_ptr error, bool notify_peer,
                              const std::string& cancel_reason) {
    impl::pending entry;
    {
        std::lock_guard lock(impl_->mutex);
        const auto found = impl_->outgoing.find(id);
        if (found == impl_->outgoing.end()) return;
        entry = std::move(found->second);
        impl_->outgoing.erase(found);
    }
    if (notify_peer) {
        send_quietly(
            notification{cancelled_method, {{"requestId", id}, {"reason", cancel_reason}}});
        abandon(id);
    }
    detail::post_completion(io_, std::move(entry.done), std::move(error), nullptr);
}

void dispatcher::handle_response(const request_id& id, std::exception_ptr error, json result) {
    const auto* number = std::get_if<std::int64_t>(&id);
    impl::pending entry;
    {
        std::lock_guard lock(impl_->mutex);
        const auto found = number ? impl_->outgoing.find(*number) : impl_->outgoing.end();
        if (found == impl_->outgoing.end()) {
            impl_->log->debug("{}: dropping a response to unknown or finished request {}",
                              impl_->options.name, to_string(id));
            return;
        }
        entry = std::move(found->second);
        impl_->outgoing.erase(found);
    }
    detail::post_completion(io_, std::move(entry.done), std::move(error), std::move(result));
}

void dispatcher::receive(decode_result incoming) {
    const auto& log = impl_->log;
    const auto& name = impl_->options.name;
    end_transit();
    if (auto* failure = std::get_if<decode_failure>(&incoming)) {
        if (!failure->reply_expected) {  // it looked like an answer to one of our requests
            fail_unreadable_answer(*failure);
            return;
        }
        log->warn("{}: received a malformed message: {}", name, failure->error.message);
        if (failure->reply_expected && !closed()) {
            send_quietly(error_response{failure->id, failure->error});
        }
        return;
    }
    auto& msg = std::get<message>(incoming);
    if (log->should_log(spdlog::level::trace)) log->trace("{} <- {}", name, encode(msg));
    if (closed()) return;
    if (auto* req = std::get_if<request>(&msg)) {
        handle_request(std::move(*req));
    } else if (auto* note = std::get_if<notification>(&msg)) {
        handle_notification(std::move(*note));
    } else if (auto* ok = std::get_if<response>(&msg)) {
        handle_response(ok->id, nullptr, std::move(ok->result));
    } else {
        auto& failed = std::get<error_response>(msg);
        if (!failed.id) {
            log->error("{}: the peer reported an error about an unidentifiable message: {} ({})",
                       name, failed.error.message, failed.error.code);
            return;
        }
        std::string method = "request " + to_string(*failed.id);
        if (const auto* number = std::get_if<std::int64_t>(&*failed.id)) {
            std::lock_guard lock(impl_->mutex);
            if (const auto found = impl_->outgoing.find(*number); found != impl_->outgoing.end()) {
                method = found->second.method;
            }
        }
        handle_response(*failed.id,
                        std::make_exception_ptr(remote_error(method, std::move(failed.error))),
                        nullptr);
    }
}

void dispatcher::close(const std::string& reason) {
    std::map<std::int64_t, impl::pending> outgoing;
    std::vector<cancellation_source> incoming;
    {
        std::lock_guard lock(impl_->mutex);
        if (impl_->closed) return;
        impl_->closed = true;
        impl_->close_reason = reason;
        outgoing.swap(impl_->outgoing);
        for (auto& [id, source] : impl_->incoming) incoming.push_back(source);
        impl_->incoming.clear();
    }
    impl_->log->debug("{}: closed ({}); failing {} pending request(s)", impl_->options.name, reason,
                      outgoing.size());
    for (auto& source : incoming) source.cancel("the connection closed: " + reason);
    for (auto& [id, entry] : outgoing) {
        auto error = std::make_exception_ptr(connection_closed(entry.method, reason));
        detail::post_completion(io_, std::move(entry.done), std::move(error), nullptr);
    }
}

}  // namespace ipybox::mcp::jsonrpc
