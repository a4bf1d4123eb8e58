#pragma once
// The transport of one 2026-07-28 POST: a session that lives for one request. start() delivers
// the POST's message (posted, so that the session is fully started first); what the session
// sends goes to the POST's exchange. The client closing its stream closes the transport, which
// cancels the request (MCP 2026-07-28: a closed stream is the cancellation).
// Thread-safety: see transport.hpp.
#include <memory>

#include "exchange.hpp"
#include "ipybox/mcp/transport/transport.hpp"

namespace ipybox::mcp::http_server::detail {

class post_transport : public transport::transport {
  public:
    post_transport(boost::asio::io_context& io, jsonrpc::message incoming,
                   std::shared_ptr<exchange> sink);

    // The client left before the answer: on_close with a reason that says so.
    void client_gone();
    std::string describe() const override { return "the HTTP client of request " + id_; }

  private:
    void do_start() override;
    void do_send(jsonrpc::message msg) override;
    void do_close() override;

    boost::asio::io_context& io_;
    jsonrpc::message incoming_;
    std::shared_ptr<exchange> sink_;
    std::string id_;
};

}  // namespace ipybox::mcp::http_server::detail
