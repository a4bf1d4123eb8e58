#include "ipybox/mcp/http/streamable_http_transport.hpp"

#include "streamable_engine.hpp"

namespace ipybox::mcp::http {

std::shared_ptr<streamable_http_transport> streamable_http_transport::create(
    boost::asio::io_context& io, http_transport_options options) {
    auto endpoint = parse_url(options.url);
    validate_custom_headers(options.headers);
    std::shared_ptr<streamable_http_transport> created(new streamable_http_transport());
    created->engine_ =
        std::make_shared<detail::streamable_engine>(io, std::move(options), std::move(endpoint));
    created->description_ = created->engine_->description();
    std::weak_ptr<streamable_http_transport> weak = created;
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

streamable_http_transport::~streamable_http_transport() {
    // Cancels whatever is in flight and ends the session; the engine finishes on its own.
    if (engine_) engine_->close();
}

std::string streamable_http_transport::describe() const {
    return description_;
}

void streamable_http_transport::set_protocol_version(const std::string& version) {
    engine_->set_protocol_version(version);
}

std::optional<std::string> streamable_http_transport::session_id() const {
    return engine_->session_id();
}

void streamable_http_transport::do_start() {}

void streamable_http_transport::do_send(jsonrpc::message msg) {
    std::optional<jsonrpc::request_id> id;
    if (const auto* request = std::get_if<jsonrpc::request>(&msg)) id = request->id;
    engine_->send(jsonrpc::encode(msg), std::move(id));
}

void streamable_http_transport::abandon_request(const jsonrpc::request_id& id) {
    engine_->abandon_request(id);
}

void streamable_http_transport::do_close() {
    engine_->close();
}

}  // namespace ipybox::mcp::http
