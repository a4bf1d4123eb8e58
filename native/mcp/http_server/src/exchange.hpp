#pragma once
// One POST's way back: the messages a session sends for the request that POST carried (its
// notifications, any request of ours on its stream, and its final answer), queued until the
// connection writes them. The connection (connection.cpp) waits on it; transports push into it.
//
// Thread-safety: push(), client_gone() and finished() may be called from any thread; next() runs
// on the connection's strand, one waiter at a time. Lifetime: shared by the connection and the
// transport that routes to it; a push after the connection finished is dropped.
// clang-format off
#include <utility>  // Boost 1.74's awaitable.hpp uses std::exchange without including <utility>
// clang-format on
#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>

#include "ipybox/mcp/jsonrpc/message.hpp"

namespace ipybox::mcp::http_server::detail {

using strand_type = boost::asio::strand<boost::asio::io_context::executor_type>;

class exchange : public std::enable_shared_from_this<exchange> {
  public:
    exchange(strand_type strand, jsonrpc::request_id id);

    const jsonrpc::request_id& id() const { return id_; }

    // A message for the client; the final answer is the response or error response with id().
    void push(jsonrpc::message msg);
    // The client closed the connection (or it broke): next() reports it.
    void client_gone();
    // Nothing more is written (the answer went out, or the client left): pushes are dropped.
    void finish();
    bool finished() const;

    enum class wake { message, deadline, gone };
    // Waits until a message is queued (returned through `out`), `deadline` passes, or the client
    // is gone, in that order of precedence.
    boost::asio::awaitable<wake> next(std::chrono::steady_clock::time_point deadline,
                                      std::optional<jsonrpc::message>& out);
    // True for the response or error response that answers id().
    bool is_final(const jsonrpc::message& msg) const;

  private:
    void wake_waiter();

    strand_type strand_;
    jsonrpc::request_id id_;
    boost::asio::steady_timer signal_;
    mutable std::mutex mutex_;
    std::deque<jsonrpc::message> queue_;
    bool gone_ = false;
    bool finished_ = false;
};

}  // namespace ipybox::mcp::http_server::detail
