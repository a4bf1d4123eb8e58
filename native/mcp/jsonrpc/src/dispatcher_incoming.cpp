// The inbound half of the dispatcher: requests to handlers, notifications (including the two the
// dispatcher owns: cancellation and progress), and the answers handlers give.
#include "dispatcher_state.hpp"
#include "ipybox/mcp/jsonrpc/errors.hpp"

namespace ipybox::mcp::jsonrpc {
namespace {

const std::string cancelled_method = "notifications/cancelled";
const std::string progress_method = "notifications/progress";

json progress_token_of(const json& params) {
    if (!params.is_object()) return nullptr;
    const auto meta = params.find("_meta");
    if (meta == params.end() || !meta->is_object()) return nullptr;
    const auto token = meta->find("progressToken");
    if (token == meta->end() || !(token->is_string() || token->is_number_integer())) return nullptr;
    return *token;
}

std::optional<progress_update> read_progress(const json& params) {
    const auto progress = params.find("progress");
    if (progress == params.end() || !progress->is_number()) return std::nullopt;
    progress_update update;
    update.progress = progress->get<double>();
    if (const auto total = params.find("total"); total != params.end() && total->is_number()) {
        update.total = total->get<double>();
    }
    if (const auto text = params.find("message"); text != params.end() && text->is_string()) {
        update.message = text->get<std::string>();
    }
    return update;
}

}  // namespace

void dispatcher::handle_request(request req) {
    request_handler handler;
    cancellation_source source;
    std::optional<error_object> refusal;
    {
        std::lock_guard lock(impl_->mutex);
        const auto found = impl_->request_handlers.find(req.method);
        if (impl_->incoming.count(req.id) != 0) {
            refusal = error_object{error_code::invalid_request,
                                   "Invalid Request: request id " + to_string(req.id) +
                                       " is already in use by a request in progress",
                                   nullptr};
        } else if (found == impl_->request_handlers.end()) {
            refusal = error_object{error_code::method_not_found, "Method not found: " + req.method,
                                   nullptr};
        } else {
            handler = found->second;
            impl_->incoming.emplace(req.id, source);
        }
    }
    if (refusal) {
        send_quietly(error_response{req.id, std::move(*refusal)});
        return;
    }
    auto state = std::make_shared<detail::incoming_state>();
    state->owner = weak_from_this();
    state->id = req.id;
    state->method = req.method;
    state->progress_token = progress_token_of(req.params);
    state->log = impl_->log;
    const responder answer(std::move(state));
    const incoming_request in{req.id, req.method, std::move(req.params), source.token()};
    try {
        handler(in, answer);
    } catch (...) {
        if (answer.finished()) {
            impl_->log->error("{}: the handler of '{}' threw after answering: {}",
                              impl_->options.name, in.method,
                              detail::describe_exception(std::current_exception()));
        } else {
            answer.reply_exception(std::current_exception());
        }
    }
}

void dispatcher::handle_notification(notification note) {
    const auto& log = impl_->log;
    const auto& name = impl_->options.name;
    if (note.method == cancelled_method) {
        const json& params = note.params;
        const auto target = params.is_object() && params.contains("requestId")
                                ? request_id_from_json(params["requestId"])
                                : std::nullopt;
        if (!target) {
            log->warn("{}: ignoring notifications/cancelled without a usable requestId", name);
            return;
        }
        std::optional<cancellation_source> source;
        {
            std::lock_guard lock(impl_->mutex);
            if (const auto found = impl_->incoming.find(*target); found != impl_->incoming.end()) {
                source = found->second;
            }
        }
        const std::string reason = params.value("reason", std::string("cancelled by the peer"));
        if (source) {
            log->debug("{}: the peer cancelled request {}: {}", name, to_string(*target), reason);
            source->cancel(reason);
        }
        return;
    }
    if (note.method == progress_method) {
        const json token =
            note.params.is_object() ? note.params.value("progressToken", json()) : json();
        const auto update = note.params.is_object() ? read_progress(note.params) : std::nullopt;
        if (!token.is_number_integer() || !update) {
            log->debug("{}: ignoring a progress notification that is not ours", name);
            return;
        }
        std::function<void(const progress_update&)> callback;
        {
            std::lock_guard lock(impl_->mutex);
            const auto found = impl_->outgoing.find(token.get<std::int64_t>());
            if (found == impl_->outgoing.end()) return;
            callback = found->second.on_progress;
            if (found->second.progress_resets_timeout) {
                found->second.quiet_since = std::chrono::steady_clock::now();
                arm_timer(found->first);
            }
        }
        if (!callback) return;
        try {
            callback(*update);
        } catch (...) {
            log->error("{}: a progress callback threw: {}", name,
                       detail::describe_exception(std::current_exception()));
        }
        return;
    }
    notification_handler handler;
    {
        std::lock_guard lock(impl_->mutex);
        if (const auto found = impl_->notification_handlers.find(note.method);
            found != impl_->notification_handlers.end()) {
            handler = found->second;
        }
    }
    if (!handler) {
        log->debug("{}: no handler for notification '{}'", name, note.method);
        return;
    }
    try {
        handler(note);
    } catch (...) {
        log->error("{}: the handler of notification '{}' threw: {}", name, note.method,
                   detail::describe_exception(std::current_exception()));
    }
}

bool dispatcher::finish_incoming(const request_id& id, message answer) {
    bool deliver = false;
    {
        std::lock_guard lock(impl_->mutex);
        const auto found = impl_->incoming.find(id);
        if (found != impl_->incoming.end()) {
            deliver = !found->second.cancelled() && !impl_->closed;
            impl_->incoming.erase(found);
        }
    }
    if (deliver) {
        send_quietly(std::move(answer));
    } else {
        impl_->log->debug("{}: not answering request {}: it was cancelled or the connection closed",
                          impl_->options.name, to_string(id));
    }
    return deliver;
}

}  // namespace ipybox::mcp::jsonrpc
