#include "exchange.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace ipybox::mcp::http_server::detail {

exchange::exchange(strand_type strand, jsonrpc::request_id id)
    : strand_(std::move(strand)), id_(std::move(id)), signal_(strand_) {}

void exchange::push(jsonrpc::message msg) {
    {
        std::lock_guard lock(mutex_);
        if (finished_) return;
        queue_.push_back(std::move(msg));
    }
    wake_waiter();
}

void exchange::client_gone() {
    {
        std::lock_guard lock(mutex_);
        gone_ = true;
    }
    wake_waiter();
}

void exchange::finish() {
    std::lock_guard lock(mutex_);
    finished_ = true;
    queue_.clear();
}

bool exchange::finished() const {
    std::lock_guard lock(mutex_);
    return finished_;
}

void exchange::wake_waiter() {
    // The timer belongs to the strand: cancel it there. A wake with no waiter is harmless: next()
    // looks at the queue before it waits.
    boost::asio::post(strand_, [self = shared_from_this()] { self->signal_.cancel(); });
}

bool exchange::is_final(const jsonrpc::message& msg) const {
    if (const auto* answer = std::get_if<jsonrpc::response>(&msg)) return answer->id == id_;
    if (const auto* failure = std::get_if<jsonrpc::error_response>(&msg)) {
        return failure->id == id_;
    }
    return false;
}

boost::asio::awaitable<exchange::wake> exchange::next(
    std::chrono::steady_clock::time_point deadline, std::optional<jsonrpc::message>& out) {
    for (;;) {
        {
            std::lock_guard lock(mutex_);
            if (!queue_.empty()) {
                out = std::move(queue_.front());
                queue_.pop_front();
                co_return wake::message;
            }
            if (gone_) co_return wake::gone;
        }
        if (std::chrono::steady_clock::now() >= deadline) co_return wake::deadline;
        signal_.expires_at(deadline);
        boost::system::error_code ignored;
        co_await signal_.async_wait(
            boost::asio::redirect_error(boost::asio::use_awaitable, ignored));
    }
}

}  // namespace ipybox::mcp::http_server::detail
