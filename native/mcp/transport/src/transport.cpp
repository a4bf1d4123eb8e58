#include "ipybox/mcp/transport/transport.hpp"

#include "ipybox/core/log.hpp"

namespace ipybox::mcp::transport {

transport::~transport() = default;

void transport::start(message_handler on_message, close_handler on_close,
                      activity_handler on_activity) {
    {
        std::lock_guard lock(mutex_);
        if (state_ != state::created) throw std::logic_error("transport::start called twice");
        on_message_ = std::move(on_message);
        on_close_ = std::move(on_close);
        on_activity_ = std::move(on_activity);
        state_ = state::open;
    }
    try {
        do_start();
    } catch (...) {
        std::lock_guard lock(mutex_);
        state_ = state::closed;
        throw;
    }
}

void transport::send(jsonrpc::message msg) {
    {
        std::lock_guard lock(mutex_);
        if (state_ != state::open) {
            throw transport_error("cannot send to " + describe() + ": the transport is " +
                                  (state_ == state::created ? "not started" : "closed"));
        }
    }
    do_send(std::move(msg));
}

void transport::close() {
    {
        std::lock_guard lock(mutex_);
        if (state_ == state::created) {
            state_ = state::closed;
            return;
        }
        if (state_ != state::open) return;
        state_ = state::closing;
    }
    do_close();
}

bool transport::is_open() const {
    std::lock_guard lock(mutex_);
    return state_ == state::open;
}

void transport::set_protocol_version(const std::string& /*version*/) {}

void transport::abandon_request(const jsonrpc::request_id& /*id*/) {}

void transport::report_activity() const {
    if (on_activity_) on_activity_();
}

void transport::deliver(jsonrpc::decode_result incoming) {
    message_handler handler;
    {
        std::lock_guard lock(mutex_);
        if (state_ == state::closed) return;
        handler = on_message_;
    }
    if (!handler) return;
    try {
        handler(std::move(incoming));
    } catch (const std::exception& error) {
        core::logger("mcp")->error("{}: the message handler threw: {}", describe(), error.what());
    } catch (...) {
        core::logger("mcp")->error("{}: the message handler threw an unknown exception",
                                   describe());
    }
}

void transport::report_closed(close_info info) {
    close_handler handler;
    {
        std::lock_guard lock(mutex_);
        if (state_ == state::closed) return;
        state_ = state::closed;
        handler = std::move(on_close_);
        on_message_ = nullptr;
    }
    core::logger("mcp")->debug("{}: closed: {}", describe(), info.reason);
    if (!handler) return;
    try {
        handler(info);
    } catch (const std::exception& error) {
        core::logger("mcp")->error("{}: the close handler threw: {}", describe(), error.what());
    } catch (...) {
        core::logger("mcp")->error("{}: the close handler threw an unknown exception", describe());
    }
}

}  // namespace ipybox::mcp::transport
