#include "connection.hpp"

#include <boost/asio/post.hpp>

#include "detail/route_helpers.hpp"
#include "ipybox/core/log.hpp"

namespace ipybox::toolserver::detail {
namespace asio = boost::asio;
namespace http = boost::beast::http;

namespace {

// Room for the header and for reading the body through it in pieces: the buffer never grows
// past this, whatever the client sends.
constexpr std::size_t read_buffer_bytes = 64 * 1024;

core::json_limits json_limits_of(const tool_server_options& options) {
    core::json_limits limits;
    limits.max_bytes = options.max_body_bytes;
    limits.max_depth = options.max_json_depth;
    limits.max_values = options.max_json_values;
    return limits;
}

}  // namespace

server_state::server_state(asio::io_context& loop, tool_server_options o,
                           approval::gate& owner_gate, tool_invoker& owner_invoker,
                           library_writer* owner_library, dependency_adder* owner_dependencies)
    : io(loop),
      options(std::move(o)),
      gate(owner_gate, owner_sections),
      invoker(owner_invoker, owner_sections),
      library(owner_library
                  ? std::optional<guarded_library>(std::in_place, *owner_library, owner_sections)
                  : std::nullopt),
      dependencies(owner_dependencies ? std::optional<guarded_dependencies>(
                                            std::in_place, *owner_dependencies, owner_sections)
                                      : std::nullopt),
      context{options.token,
              gate,
              invoker,
              options.shell_commands,
              library ? &*library : nullptr,
              dependencies ? &*dependencies : nullptr,
              json_limits_of(options)},
      log(core::logger("toolserver")),
      acceptor(loop),
      budget(options.max_request_memory_bytes) {
    const auto largest = request_cost(options.max_body_bytes, options.max_json_values);
    if (largest > options.max_request_memory_bytes) {
        throw std::invalid_argument("tool server: max_request_memory_bytes (" +
                                    std::to_string(options.max_request_memory_bytes) +
                                    ") cannot take a request of " +
                                    std::to_string(options.max_body_bytes) +
                                    " bytes, which may cost " + std::to_string(largest));
    }
}

connection::connection(std::shared_ptr<server_state> state,
                       asio::local::stream_protocol::socket socket)
    : state_(std::move(state)),
      socket_(std::move(socket)),
      deadline_(state_->io),
      buffer_(std::max(read_buffer_bytes, state_->options.max_header_bytes + 1024)) {}

void connection::start() {
    read_request();
}

void connection::close() {
    if (closed_) return;
    closed_ = true;
    deadline_.cancel();
    if (waiting_) state_->budget.cancel(*std::exchange(waiting_, std::nullopt));
    boost::system::error_code ignored;
    socket_.shutdown(asio::local::stream_protocol::socket::shutdown_both, ignored);
    socket_.close(ignored);
    state_->open.erase(this);
    // A request being handled gives its budget back when its answer comes (serve()).
    if (!parser_) return;
    parser_.reset();
    release_budget();
}

void connection::arm_deadline(std::chrono::seconds limit) {
    deadline_.expires_after(limit);
    deadline_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
        if (ec) return;  // cancelled: the operation finished in time
        if (auto self = weak.lock()) self->close();
    });
}

void connection::release_budget() {
    state_->budget.release(std::exchange(reserved_, 0));
}

void connection::read_request() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(state_->options.max_header_bytes));
    parser_->body_limit(state_->options.max_body_bytes);
    arm_deadline(state_->options.idle_timeout);
    http::async_read_header(socket_, buffer_, *parser_,
                            [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                                self->on_header(ec);
                            });
}

void connection::on_header(boost::system::error_code ec) {
    deadline_.cancel();
    if (closed_) return;
    if (ec == http::error::body_limit) {  // a Content-Length over the limit: nothing read
        refuse(413, "the request body is too large");
        return;
    }
    if (ec == http::error::header_limit || ec == http::error::buffer_overflow) {
        refuse(431, "the request header is too large");
        return;
    }
    if (ec) {  // closed by the client, timed out, or malformed: drop the connection
        close();
        return;
    }
    // A chunked body (or one that ends with the connection) may be as large as the limit.
    const auto length = parser_->content_length();
    const std::size_t body_bytes = length ? static_cast<std::size_t>(*length)
                                   : parser_->chunked() || !parser_->is_done()
                                       ? state_->options.max_body_bytes
                                       : 0;
    const auto cost = request_cost(body_bytes, state_->options.max_json_values);
    // Admission may come at once (inside reserve) or later, from another request's release.
    // The queue keeps a waiting connection alive; close() takes it out of the queue.
    const auto ticket = state_->budget.reserve(cost, [self = shared_from_this(), cost] {
        self->waiting_.reset();
        self->reserved_ = cost;  // from here the cost is this connection's to give back
        self->read_body();
    });
    if (reserved_ == 0) {
        waiting_ = ticket;
        state_->log->debug("a request of {} bytes waits for {} bytes of the request budget",
                           body_bytes, cost);
    }
}

void connection::read_body() {
    if (closed_) {
        release_budget();
        return;
    }
    arm_deadline(state_->options.idle_timeout);
    http::async_read(socket_, buffer_, *parser_,
                     [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                         self->on_read(ec);
                     });
}

void connection::on_read(boost::system::error_code ec) {
    deadline_.cancel();
    if (closed_) return;
    if (ec == http::error::body_limit) {  // a chunked body that grew past the limit
        refuse(413, "the request body is too large");
        return;
    }
    if (ec) {  // closed by the client, timed out, or malformed: drop the connection
        close();
        return;
    }
    auto& message = parser_->get();
    http_request request{std::string(message.method_string()), std::string(message.target()),
                         std::string(message[http::field::authorization]),
                         std::move(message.body())};
    const bool keep_alive = message.keep_alive();
    parser_.reset();  // the body now lives in `request` alone
    serve(std::move(request), keep_alive);
}

void connection::serve(http_request request, bool keep_alive) {
    // The answer may come from another thread (an approval, an MCP call) or at once; it goes
    // back to the loop, where the socket lives. The responder holds the connection, and with it
    // the server state the routes' context lives in, until it has answered.
    handle_request(std::move(request), state_->context,
                   [self = shared_from_this(), keep_alive](http_response response) mutable {
                       auto& io = self->state_->io;
                       asio::post(io, [self = std::move(self), response = std::move(response),
                                       keep_alive]() mutable {
                           self->answer(std::move(response), keep_alive);
                       });
                   });
}

void connection::answer(http_response response, bool keep_alive) {
    if (closed_) {
        release_budget();
        return;
    }
    // The request's cost becomes its answer's, held until the answer is written.
    const auto cost = answer_cost(response.body.size());
    if (cost <= reserved_) {
        state_->budget.release(std::exchange(reserved_, cost) - cost);
    } else if (state_->budget.try_take(cost - reserved_)) {
        reserved_ = cost;
    } else {
        state_->log->warn(
            "dropped an answer of {} bytes: the answers waiting to be read and the requests in "
            "flight hold {} of the {} bytes of the tool server's memory budget",
            response.body.size(), state_->budget.in_use(), state_->budget.capacity());
        release_budget();
        response = error_response(
            503, error_type::server_error,
            "the answer (" + std::to_string(response.body.size()) +
                " bytes) does not fit in the tool server's memory budget (" +
                std::to_string(state_->budget.capacity()) +
                " bytes), which the answers not yet read by the kernel and the requests in flight "
                "share; read the answers of other connections, or ask for less");
        keep_alive = false;
    }
    write_response(std::move(response), keep_alive);
}

void connection::refuse(int status, const char* message) {
    parser_.reset();
    release_budget();
    state_->log->warn("refused a request: {}", message);
    write_response(error_response(status, error_type::bad_request, message), false);
}

void connection::write_response(http_response response, bool keep_alive) {
    if (closed_) {
        release_budget();
        return;
    }
    response_ = {static_cast<http::status>(response.status), 11};
    response_.set(http::field::content_type, "application/json");
    response_.keep_alive(keep_alive);
    response_.body() = std::move(response.body);
    response_.prepare_payload();
    arm_deadline(state_->options.write_timeout);
    http::async_write(
        socket_, response_,
        [self = shared_from_this(), keep_alive](boost::system::error_code ec, std::size_t) {
            self->deadline_.cancel();
            self->response_ = {};
            self->release_budget();  // the answer's (answer()), written or dropped
            if (ec || !keep_alive || self->closed_) {
                self->close();
                return;
            }
            self->read_request();
        });
}

}  // namespace ipybox::toolserver::detail
