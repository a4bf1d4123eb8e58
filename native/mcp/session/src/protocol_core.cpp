#include "protocol_core.hpp"

#include "ipybox/core/log.hpp"
#include "ipybox/mcp/session/types.hpp"

namespace ipybox::mcp::session::detail {

std::shared_ptr<protocol_core> protocol_core::create(boost::asio::io_context& io,
                                                     std::shared_ptr<transport::transport> channel,
                                                     protocol_options options) {
    return std::shared_ptr<protocol_core>(
        new protocol_core(io, std::move(channel), std::move(options)));
}

protocol_core::protocol_core(boost::asio::io_context& io,
                             std::shared_ptr<transport::transport> channel,
                             protocol_options options)
    : channel_(std::move(channel)), options_(std::move(options)), log_(core::logger("mcp")) {
    if (!channel_) throw std::invalid_argument("an MCP session needs a transport");
    jsonrpc::dispatcher_options dispatch;
    dispatch.default_timeout = options_.request_timeout;
    dispatch.default_max_duration = options_.max_request_duration;
    dispatch.name = options_.name;
    if (!options_.peer.empty()) dispatch.peer = options_.peer;
    dispatch.on_abandon = [weak = std::weak_ptr<transport::transport>(channel_)](std::int64_t id) {
        if (auto open = weak.lock()) open->abandon_request(jsonrpc::request_id(id));
    };
    dispatcher_ = jsonrpc::dispatcher::create(
        io, [channel = channel_](jsonrpc::message msg) { channel->send(std::move(msg)); },
        std::move(dispatch));
}

protocol_core::~protocol_core() {
    const bool client = options_.role == sender::client;
    dispatcher_->close(client ? "the client session was closed" : "the server session was closed");
    channel_->close();
}

void protocol_core::start() {
    std::weak_ptr<jsonrpc::dispatcher> weak_dispatcher = dispatcher_;
    std::weak_ptr<protocol_core> weak_self = shared_from_this();
    try {
        channel_->start(
            [weak_dispatcher](jsonrpc::decode_result frame) {
                if (auto dispatcher = weak_dispatcher.lock()) dispatcher->receive(std::move(frame));
            },
            [weak_self](const transport::close_info& info) {
                if (auto self = weak_self.lock()) self->transport_closed(info);
            },
            [weak_dispatcher] {
                if (auto dispatcher = weak_dispatcher.lock()) dispatcher->note_activity();
            });
    } catch (const std::exception& error) {
        {
            std::lock_guard lock(mutex_);
            phase_ = phase::closed;
        }
        dispatcher_->close(error.what());
        throw;
    }
}

void protocol_core::close(const std::string& reason) {
    dispatcher_->close(reason);
    channel_->close();
}

void protocol_core::transport_closed(const transport::close_info& info) {
    {
        std::lock_guard lock(mutex_);
        phase_ = phase::closed;
    }
    dispatcher_->close(info.reason);
    log_->log(options_.close_log_level, "{}: connection closed: {}", options_.name, info.reason);
    if (!options_.on_closed) return;
    try {
        options_.on_closed(info);
    } catch (const std::exception& error) {
        log_->error("{}: the on_closed callback threw: {}", options_.name, error.what());
    }
}

phase protocol_core::current() const {
    std::lock_guard lock(mutex_);
    return phase_;
}

bool protocol_core::advance(phase from, phase to) {
    std::lock_guard lock(mutex_);
    if (phase_ != from) return false;
    phase_ = to;
    return true;
}

void protocol_core::negotiated(const std::string& protocol_version, json peer_capabilities) {
    {
        std::lock_guard lock(mutex_);
        protocol_version_ = protocol_version;
        peer_capabilities_ =
            peer_capabilities.is_object() ? std::move(peer_capabilities) : json::object();
    }
    channel_->set_protocol_version(protocol_version);
}

std::string protocol_core::protocol_version() const {
    std::lock_guard lock(mutex_);
    return protocol_version_;
}

json protocol_core::peer_capabilities() const {
    std::lock_guard lock(mutex_);
    return peer_capabilities_;
}

bool protocol_core::peer_supports(const std::string& capability) const {
    std::lock_guard lock(mutex_);
    return peer_capabilities_.contains(capability);
}

void protocol_core::send_request(const std::string& method, json params,
                                 jsonrpc::request_options options, jsonrpc::completion<json> done) {
    const auto now = current();
    if (now == phase::created || now == phase::initializing) {
        throw std::logic_error("'" + method + "' requested before initialize() completed");
    }
    if (const auto needed = capability_for(options_.role, method);
        needed && now == phase::ready && !peer_supports(std::string(*needed))) {
        done(std::make_exception_ptr(capability_not_declared(method, std::string(*needed))), {});
        return;
    }
    dispatcher_->send_request(method, std::move(params), std::move(options), std::move(done));
}

void protocol_core::send_initialize(json params, jsonrpc::request_options options,
                                    jsonrpc::completion<json> done) {
    dispatcher_->send_request("initialize", std::move(params), std::move(options), std::move(done));
}

void protocol_core::notify(const std::string& method, json params) {
    dispatcher_->send_notification(method, std::move(params));
}

void protocol_core::on_request(const std::string& method, jsonrpc::request_handler handler) {
    dispatcher_->on_request(method, std::move(handler));
}

void protocol_core::on_notification(const std::string& method,
                                    jsonrpc::notification_handler handler) {
    dispatcher_->on_notification(method, std::move(handler));
}

}  // namespace ipybox::mcp::session::detail
