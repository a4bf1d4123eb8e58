#include "post_transport.hpp"

#include <boost/asio/post.hpp>

namespace ipybox::mcp::http_server::detail {

post_transport::post_transport(boost::asio::io_context& io, jsonrpc::message incoming,
                               std::shared_ptr<exchange> sink)
    : io_(io),
      incoming_(std::move(incoming)),
      sink_(std::move(sink)),
      id_(jsonrpc::to_string(sink_->id())) {}

void post_transport::do_start() {
    auto self = std::static_pointer_cast<post_transport>(shared_from_this());
    boost::asio::post(io_, [self] { self->deliver(std::move(self->incoming_)); });
}

void post_transport::do_send(jsonrpc::message msg) {
    sink_->push(std::move(msg));
}

void post_transport::do_close() {
    report_closed({"the request was answered", true, std::nullopt, std::nullopt});
}

void post_transport::client_gone() {
    report_closed(
        {"the client closed the HTTP stream of request " + id_, false, std::nullopt, std::nullopt});
}

}  // namespace ipybox::mcp::http_server::detail
