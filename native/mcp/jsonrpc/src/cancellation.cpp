#include "ipybox/mcp/jsonrpc/cancellation.hpp"

#include <map>
#include <mutex>
#include <vector>

#include "ipybox/core/log.hpp"

namespace ipybox::mcp::jsonrpc {
namespace detail {

struct cancellation_state {
    mutable std::mutex mutex;
    bool cancelled = false;
    std::string reason;
    std::uint64_t next_key = 1;
    std::map<std::uint64_t, std::function<void(const std::string&)>> callbacks;
};

}  // namespace detail
namespace {

void run_callback(const std::function<void(const std::string&)>& callback,
                  const std::string& reason) {
    try {
        callback(reason);
    } catch (const std::exception& error) {
        core::logger("mcp")->error("a cancellation callback threw: {}", error.what());
    } catch (...) {
        core::logger("mcp")->error("a cancellation callback threw an unknown exception");
    }
}

}  // namespace

cancellation_registration::cancellation_registration(
    std::weak_ptr<detail::cancellation_state> state, std::uint64_t key)
    : state_(std::move(state)), key_(key) {}

cancellation_registration::cancellation_registration(cancellation_registration&& other) noexcept
    : state_(std::move(other.state_)), key_(std::exchange(other.key_, 0)) {}

cancellation_registration& cancellation_registration::operator=(
    cancellation_registration&& other) noexcept {
    if (this != &other) {
        reset();
        state_ = std::move(other.state_);
        key_ = std::exchange(other.key_, 0);
    }
    return *this;
}

cancellation_registration::~cancellation_registration() {
    reset();
}

void cancellation_registration::reset() noexcept {
    if (auto state = state_.lock(); state && key_ != 0) {
        std::lock_guard lock(state->mutex);
        state->callbacks.erase(key_);
    }
    state_.reset();
    key_ = 0;
}

cancellation_token::cancellation_token(std::shared_ptr<detail::cancellation_state> state)
    : state_(std::move(state)) {}

bool cancellation_token::cancelled() const {
    if (!state_) return false;
    std::lock_guard lock(state_->mutex);
    return state_->cancelled;
}

std::string cancellation_token::reason() const {
    if (!state_) return {};
    std::lock_guard lock(state_->mutex);
    return state_->reason;
}

cancellation_registration cancellation_token::on_cancel(
    std::function<void(const std::string&)> callback) const {
    if (!state_ || !callback) return {};
    std::unique_lock lock(state_->mutex);
    if (state_->cancelled) {
        const std::string reason = state_->reason;
        lock.unlock();
        run_callback(callback, reason);
        return {};
    }
    const auto key = state_->next_key++;
    state_->callbacks.emplace(key, std::move(callback));
    return {state_, key};
}

cancellation_source::cancellation_source()
    : state_(std::make_shared<detail::cancellation_state>()) {}

cancellation_token cancellation_source::token() const {
    return cancellation_token(state_);
}

bool cancellation_source::cancel(const std::string& reason) {
    std::map<std::uint64_t, std::function<void(const std::string&)>> callbacks;
    {
        std::lock_guard lock(state_->mutex);
        if (state_->cancelled) return false;
        state_->cancelled = true;
        state_->reason = reason;
        callbacks.swap(state_->callbacks);
    }
    for (const auto& [key, callback] : callbacks) run_callback(callback, reason);
    return true;
}

bool cancellation_source::cancelled() const {
    std::lock_guard lock(state_->mutex);
    return state_->cancelled;
}

}  // namespace ipybox::mcp::jsonrpc
