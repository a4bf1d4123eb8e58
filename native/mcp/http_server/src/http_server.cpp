#include "ipybox/mcp/http_server/http_server.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <vector>

#include "connection.hpp"
#include "ipybox/core/log.hpp"

namespace ipybox::mcp::http_server {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

bool is_loopback_host(const std::string& host) {
    if (host == "localhost") return true;
    boost::system::error_code error;
    const auto address = asio::ip::make_address(host, error);
    return !error && address.is_loopback();
}

struct http_server::impl : std::enable_shared_from_this<impl> {
    asio::io_context& io;
    std::shared_ptr<detail::server_state> state;
    tcp::acceptor acceptor;
    asio::steady_timer reaper;
    std::vector<std::weak_ptr<detail::connection>> connections;  // on the io_context only
    bool stopped = false;

    impl(asio::io_context& context, http_server_options options, session_factory factory)
        : io(context),
          state(std::make_shared<detail::server_state>(context, std::move(options),
                                                       std::move(factory))),
          acceptor(context),
          reaper(context) {}

    asio::awaitable<void> accept_loop() {
        auto log = core::logger("http");
        for (;;) {
            boost::system::error_code error;
            auto socket =
                co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, error));
            if (stopped || error == asio::error::operation_aborted) co_return;
            if (error) {
                log->warn("accepting a connection failed: {}", error.message());
                continue;
            }
            if (state->connections >= state->options.limits.max_connections) {
                log->warn("refusing a connection: {} are open (the limit)", state->connections);
                socket.close(error);
                continue;
            }
            std::erase_if(connections, [](const auto& weak) { return weak.expired(); });
            auto serving = std::make_shared<detail::connection>(std::move(socket), state);
            connections.push_back(serving);
            serving->start();
        }
    }

    void arm_reaper() {
        reaper.expires_after(std::chrono::seconds(30));
        reaper.async_wait([weak = weak_from_this()](const boost::system::error_code& error) {
            auto self = weak.lock();
            if (error || !self || self->stopped) return;
            if (const auto reaped = self->state->sessions.reap_idle(); reaped > 0) {
                core::logger("http")->info("ended {} idle MCP session(s)", reaped);
            }
            self->arm_reaper();
        });
    }

    void shut_down() {
        if (stopped) return;
        stopped = true;
        boost::system::error_code ignored;
        acceptor.close(ignored);
        reaper.cancel();
        for (const auto& weak : connections) {
            if (auto open = weak.lock()) open->stop();
        }
        connections.clear();
        state->sessions.close_all();
    }
};

std::shared_ptr<http_server> http_server::create(asio::io_context& io, http_server_options options,
                                                 session_factory factory) {
    return std::shared_ptr<http_server>(
        new http_server(io, std::move(options), std::move(factory)));
}

http_server::http_server(asio::io_context& io, http_server_options options, session_factory factory)
    : impl_(std::make_shared<impl>(io, std::move(options), std::move(factory))) {}

http_server::~http_server() {
    boost::system::error_code ignored;
    impl_->acceptor.close(ignored);
}

std::uint16_t http_server::start() {
    const auto& options = impl_->state->options;
    boost::system::error_code error;
    const auto host = options.host == "localhost" ? std::string("127.0.0.1") : options.host;
    const auto address = asio::ip::make_address(host, error);
    if (error) {
        throw std::invalid_argument("cannot listen on '" + options.host +
                                    "': not an IP address (e.g. 127.0.0.1 or ::1)");
    }
    const tcp::endpoint endpoint(address, options.port);
    auto& acceptor = impl_->acceptor;
    acceptor.open(endpoint.protocol());
    acceptor.set_option(tcp::acceptor::reuse_address(true));
    acceptor.bind(endpoint);
    acceptor.listen(asio::socket_base::max_listen_connections);
    const auto port = acceptor.local_endpoint().port();
    asio::co_spawn(
        impl_->io, [self = impl_] { return self->accept_loop(); }, asio::detached);
    impl_->arm_reaper();
    return port;
}

void http_server::stop_intake() {
    impl_->state->draining = true;
    asio::post(impl_->io, [self = impl_] {
        boost::system::error_code ignored;
        self->acceptor.close(ignored);
    });
}

std::size_t http_server::requests_in_flight() const {
    return impl_->state->requests_in_flight;
}

void http_server::stop() {
    asio::post(impl_->io, [self = impl_] { self->shut_down(); });
}

}  // namespace ipybox::mcp::http_server
