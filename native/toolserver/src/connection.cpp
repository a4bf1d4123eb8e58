#include "connection.hpp"

#include <boost/asio/post.hpp>
#include <system_error>
#include <thread>

#include "ipybox/core/log.hpp"

namespace ipybox::toolserver::detail {
namespace asio = boost::asio;
namespace http = boost::beast::http;

server_state::server_state(asio::io_context& loop, tool_server_options o, approval::gate& gate,
                           tool_invoker& invoker, approval::gate* shell_gate,
                           library_writer* library)
    : io(loop),
      options(std::move(o)),
      context{options.token, gate, invoker, shell_gate, library},
      log(core::logger("toolserver")),
      acceptor(loop) {}

bool server_state::enter_worker() {
    std::lock_guard lock(mutex);
    if (stopping) return false;
    ++workers;
    return true;
}

void server_state::leave_worker() {
    std::lock_guard lock(mutex);
    --workers;
    workers_done.notify_all();
}

connection::connection(std::shared_ptr<server_state> state,
                       asio::local::stream_protocol::socket socket)
    : state_(std::move(state)), socket_(std::move(socket)), deadline_(state_->io) {}

void connection::start() {
    read_request();
}

void connection::close() {
    if (closed_) return;
    closed_ = true;
    deadline_.cancel();
    boost::system::error_code ignored;
    socket_.shutdown(asio::local::stream_protocol::socket::shutdown_both, ignored);
    socket_.close(ignored);
    state_->open.erase(this);
}

void connection::arm_deadline(std::chrono::seconds limit) {
    deadline_.expires_after(limit);
    deadline_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
        if (ec) return;  // cancelled: the operation finished in time
        if (auto self = weak.lock()) self->close();
    });
}

void connection::read_request() {
    parser_.emplace();
    parser_->body_limit(state_->options.max_body_bytes);
    arm_deadline(state_->options.idle_timeout);
    http::async_read(socket_, buffer_, *parser_,
                     [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                         self->on_read(ec);
                     });
}

void connection::on_read(boost::system::error_code ec) {
    deadline_.cancel();
    if (closed_) return;
    if (ec == http::error::body_limit) {
        write_response(
            {413, R"({"error":{"type":"bad_request","message":"the request body is too large"}})"},
            false);
        return;
    }
    if (ec) {  // closed by the client, timed out, or malformed: drop the connection
        close();
        return;
    }
    const auto& message = parser_->get();
    http_request request{std::string(message.method_string()), std::string(message.target()),
                         std::string(message[http::field::authorization]), message.body()};
    handle_on_worker(std::move(request), message.keep_alive());
}

void connection::handle_on_worker(http_request request, bool keep_alive) {
    if (!state_->enter_worker()) {
        close();
        return;
    }
    auto work = [self = shared_from_this(), request = std::move(request), keep_alive]() mutable {
        auto state = self->state_;
        http_response response;
        try {
            response = handle_request(request, state->context);
        } catch (const std::exception& e) {
            state->log->error("tool server request failed: {}", e.what());
            response = {500, R"({"error":{"type":"server_error","message":"internal error"}})"};
        }
        // The answer goes back to the loop; this thread lets go of the connection first, so
        // that the connection is only ever destroyed where its socket lives.
        asio::post(state->io, [self = std::move(self), response = std::move(response), keep_alive] {
            self->write_response(response, keep_alive);
        });
        state->leave_worker();
    };
    try {
        std::thread(std::move(work)).detach();
    } catch (const std::system_error& e) {  // no thread to be had (a process limit, say)
        state_->leave_worker();
        state_->log->warn("tool server: no worker thread for a request: {}", e.what());
        write_response(
            {503, R"({"error":{"type":"server_error","message":"ipybox is out of threads"}})"},
            false);
    }
}

void connection::write_response(const http_response& response, bool keep_alive) {
    if (closed_) return;
    response_ = {static_cast<http::status>(response.status), 11};
    response_.set(http::field::content_type, "application/json");
    response_.keep_alive(keep_alive);
    response_.body() = response.body;
    response_.prepare_payload();
    arm_deadline(state_->options.write_timeout);
    http::async_write(
        socket_, response_,
        [self = shared_from_this(), keep_alive](boost::system::error_code ec, std::size_t) {
            self->deadline_.cancel();
            if (ec || !keep_alive || self->closed_) {
                self->close();
                return;
            }
            self->read_request();
        });
}

}  // namespace ipybox::toolserver::detail
