#include "dispatcher_state.hpp"
#include "ipybox/mcp/jsonrpc/errors.hpp"

namespace ipybox::mcp::jsonrpc {
namespace detail {

error_object error_from_exception(std::exception_ptr error) {
    try {
        std::rethrow_exception(std::move(error));
    } catch (const jsonrpc_error& failure) {
        return failure.to_error_object();
    } catch (const std::exception& failure) {
        return {error_code::internal_error, failure.what(), nullptr};
    } catch (...) {
        return {error_code::internal_error, "unknown exception", nullptr};
    }
}

std::string describe_exception(std::exception_ptr error) {
    try {
        std::rethrow_exception(std::move(error));
    } catch (const std::exception& failure) {
        return failure.what();
    } catch (...) {
        return "unknown exception";
    }
}

incoming_state::~incoming_state() {
    if (finished.exchange(true)) return;
    try {
        if (auto owner_alive = owner.lock()) {
            const bool sent = owner_alive->finish_incoming(
                id, error_response{
                        id,
                        {error_code::internal_error,
                         "the handler of '" + method + "' finished without replying", nullptr}});
            // Silence after a cancellation or a closed connection is legitimate.
            if (sent) {
                log->error("the handler of '{}' (request {}) finished without replying", method,
                           to_string(id));
            }
        }
    } catch (...) {
        // Destructors must not throw; the peer will time out instead.
    }
}

}  // namespace detail
namespace {

bool claim(detail::incoming_state& state) {
    if (!state.finished.exchange(true)) return true;
    state.log->warn("ignoring a second answer to '{}' (request {})", state.method,
                    to_string(state.id));
    return false;
}

}  // namespace

responder::responder(std::shared_ptr<detail::incoming_state> state) : state_(std::move(state)) {}

const request_id& responder::id() const {
    return state_->id;
}

bool responder::finished() const {
    return state_->finished.load();
}

bool responder::wants_progress() const {
    return !state_->progress_token.is_null();
}

void responder::reply(json result) const {
    if (!claim(*state_)) return;
    if (auto owner = state_->owner.lock()) {
        owner->finish_incoming(state_->id, response{state_->id, std::move(result)});
    }
}

void responder::reply_error(error_object error) const {
    if (!claim(*state_)) return;
    if (auto owner = state_->owner.lock()) {
        owner->finish_incoming(state_->id, error_response{state_->id, std::move(error)});
    }
}

void responder::reply_exception(std::exception_ptr error) const {
    auto mapped = detail::error_from_exception(std::move(error));
    if (mapped.code == error_code::internal_error) {
        state_->log->warn("'{}' (request {}) failed: {}", state_->method, to_string(state_->id),
                          mapped.message);
    }
    reply_error(std::move(mapped));
}

void responder::report_progress(const progress_update& update) const {
    if (state_->progress_token.is_null() || state_->finished.load()) return;
    auto owner = state_->owner.lock();
    if (!owner) return;
    json params = {{"progressToken", state_->progress_token}, {"progress", update.progress}};
    if (update.total) params["total"] = *update.total;
    if (!update.message.empty()) params["message"] = update.message;
    owner->send_quietly(notification{"notifications/progress", std::move(params)});
}

}  // namespace ipybox::mcp::jsonrpc
