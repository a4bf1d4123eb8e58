#pragma once
// The I/O engine behind sse_transport (see its header for the behaviour).
#include <deque>

#include "engine_base.hpp"

namespace ipybox::mcp::http::detail {

class sse_engine final : public engine_base {
  public:
    sse_engine(boost::asio::io_context& io, http_transport_options options, url sse_url);

    // Thread-safe: each posts to the strand.
    void start();
    void send(std::string body, std::optional<jsonrpc::request_id> id);
    void close();
    // Thread-safe.
    void set_protocol_version(const std::string& version);
    std::optional<std::string> endpoint() const;

  private:
    struct outgoing {
        std::string body;
        std::optional<jsonrpc::request_id> id;
    };

    asio::awaitable<void> listen();
    void on_endpoint(const std::string& reference);
    void pump();
    asio::awaitable<void> post(outgoing message, url endpoint);

    mutable std::mutex mutex_;  // guards the two values below
    std::optional<url> endpoint_;
    std::string protocol_version_;

    std::deque<outgoing> queue_;
    bool posting_ = false;
    std::shared_ptr<asio::steady_timer> endpoint_deadline_;
};

}  // namespace ipybox::mcp::http::detail
