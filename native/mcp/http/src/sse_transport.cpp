#include "ipybox/mcp/http/sse_transport.hpp"

#include "sse_engine.hpp"

namespace ipybox::mcp::http {

std::shared_ptr<sse_transport> sse_transport::create(boost::asio::io_context& io,
                                                     http_transport_options options) {
    auto sse_url = parse_url(options.url);
    validate_custom_headers(options.headers);
    std::shared_ptr<sse_transport> created(new sse_transport());
    created->engine_ =
        std::make_shared<detail::sse_engine>(io, std::move(options), std::move(sse_url));
    created->description_ = created->engine_->description();
    std::weak_ptr<sse_transport> weak = created;
    created->engine_->attach({[weak](jsonrpc::decode_result incoming) {
                                  if (auto self = weak.lock()) self->deliver(std::move(incoming));
                              },
                              [weak](mcp::transport::close_info info) {
                                  if (auto self = weak.lock()) self->report_closed(std::move(info));
                              },
                              [weak] {
                                  if (auto self = weak.lock()) self->report_activity();
                              }});
    return created;
}

sse_transport::~sse_transport() {
    if (engine_) engine_->close();
}

std::string sse_transport::describe() const {
    return description_;
}

void sse_transport::set_protocol_version(const std::string& version) {
    engine_->set_protocol_version(version);
}

std::optional<std::string> sse_transport::endpoint() const {
    return engine_->endpoint();
}

void sse_transport::do_start() {
    engine_->start();
}

void sse_transport::do_send(jsonrpc::message msg) {
    std::optional<jsonrpc::request_id> id;
    if (const auto* request = std::get_if<jsonrpc::request>(&msg)) id = request->id;
    engine_->send(jsonrpc::encode(msg), std::move(id));
}

void sse_transport::do_close() {
    engine_->close();
}

}  // namespace ipybox::mcp::http
