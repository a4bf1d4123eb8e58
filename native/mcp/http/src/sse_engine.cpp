#include "sse_engine.hpp"

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>

namespace ipybox::mcp::http::detail {
namespace {

std::string millis(std::chrono::milliseconds duration) {
    return std::to_string(duration.count()) + " ms";
}

std::string trim(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    const auto last = text.find_last_not_of(" \t\r\n");
    return std::string(text.substr(first, last - first + 1));
}

}  // namespace

sse_engine::sse_engine(boost::asio::io_context& io, http_transport_options options, url sse_url)
    : engine_base(io, std::move(options), std::move(sse_url)) {}

void sse_engine::start() {
    asio::post(strand_, [self = std::static_pointer_cast<sse_engine>(shared_from_this())] {
        self->spawn(self->listen(), "the SSE stream");
    });
}

void sse_engine::send(std::string body, std::optional<jsonrpc::request_id> id) {
    asio::post(strand_, [self = std::static_pointer_cast<sse_engine>(shared_from_this()),
                         message = outgoing{std::move(body), std::move(id)}]() mutable {
        if (self->closing_) return;
        self->queue_.push_back(std::move(message));
        self->pump();
    });
}

void sse_engine::close() {
    asio::post(strand_, [self = std::static_pointer_cast<sse_engine>(shared_from_this())] {
        if (self->closing_) return;
        self->closing_ = true;
        self->queue_.clear();
        self->cancel_all();
        if (self->endpoint_deadline_) self->endpoint_deadline_->cancel();
        self->report_requested_close();
    });
}

void sse_engine::set_protocol_version(const std::string& version) {
    std::lock_guard lock(mutex_);
    protocol_version_ = version;
}

std::optional<std::string> sse_engine::endpoint() const {
    std::lock_guard lock(mutex_);
    if (!endpoint_) return std::nullopt;
    return endpoint_->to_string();
}

asio::awaitable<void> sse_engine::listen() {
    lease exchange(*this, target_, {options_.connect_timeout, options_.read_timeout});
    endpoint_deadline_ = std::make_shared<asio::steady_timer>(strand_, options_.connect_timeout);
    endpoint_deadline_->async_wait(asio::bind_executor(
        strand_, [weak = weak_from_this(), this](const boost::system::error_code& error) {
            const auto self = weak.lock();
            if (error || !self || endpoint()) return;
            fail("no endpoint event arrived within " + millis(options_.connect_timeout));
        }));

    std::optional<exchange_failure> failure;
    try {
        auto request = make_request(bhttp::verb::get, target_, options_.headers);
        request.set(bhttp::field::accept, "text/event-stream");
        request.set(bhttp::field::cache_control, "no-cache");
        co_await exchange->send(std::move(request));
        co_await exchange->read_header(options_.connect_timeout);
    } catch (const exchange_failure& caught) {
        failure = caught;
    }
    if (failure) {
        if (failure->kind() != failure_kind::cancelled) {
            fail(std::string("cannot open the SSE stream: ") + failure->what());
        }
        co_return;
    }
    const auto status = exchange->status();
    if (status != 200 ||
        classify_content_type(exchange->header("Content-Type")) != body_kind::event_stream) {
        const auto body = co_await read_error_body(*exchange);
        fail("the SSE stream was refused: " +
             (status == 200 ? std::string("the response is not an SSE stream (Content-Type '") +
                                  exchange->header("Content-Type") + "')"
                            : describe_http_status(status, exchange->reason(), body)));
        co_return;
    }

    sse_parser parser(options_.max_message_bytes);
    try {
        co_await read_events(*exchange, parser, [this](const sse_event& event) {
            if (event.type == "endpoint") {
                on_endpoint(event.data);
            } else if (auto frame = decode_event(event)) {
                deliver(std::move(*frame));
            }
            return !closing_;
        });
    } catch (const exchange_failure& caught) {
        failure = caught;
    }
    endpoint_deadline_->cancel();
    if (closing_ || (failure && failure->kind() == failure_kind::cancelled)) co_return;
    if (!failure) {
        fail("the server ended the SSE stream");
    } else if (failure->kind() == failure_kind::timed_out) {
        fail("the SSE stream was silent for longer than the read timeout (" +
             millis(options_.read_timeout) + ")");
    } else {
        fail(std::string("the SSE stream broke: ") + failure->what());
    }
}

void sse_engine::on_endpoint(const std::string& reference) {
    if (endpoint()) {
        log_->warn("{}: ignoring a second endpoint event", description());
        return;
    }
    url resolved;
    try {
        resolved = resolve_url(target_, trim(reference));
    } catch (const url_error& error) {
        fail(std::string("the endpoint event is not a usable URL: ") + error.what());
        return;
    }
    if (!same_origin(resolved, target_)) {
        fail("the endpoint event names another origin (" + resolved.origin() +
             "); messages are only sent to " + target_.origin());
        return;
    }
    {
        std::lock_guard lock(mutex_);
        endpoint_ = resolved;
    }
    endpoint_deadline_->cancel();
    log_->debug("{}: messages go to {}", description(), resolved.origin() + resolved.path);
    pump();
}

void sse_engine::pump() {
    if (posting_ || closing_ || queue_.empty()) return;
    std::optional<url> where;
    {
        std::lock_guard lock(mutex_);
        where = endpoint_;
    }
    if (!where) return;
    posting_ = true;
    auto message = std::move(queue_.front());
    queue_.pop_front();
    spawn(post(std::move(message), std::move(*where)), "a POST");
}

asio::awaitable<void> sse_engine::post(outgoing message, url endpoint) {
    lease exchange(*this, endpoint, {options_.connect_timeout, options_.read_timeout});
    std::optional<exchange_failure> failure;
    try {
        auto request =
            make_request(bhttp::verb::post, endpoint, options_.headers, std::move(message.body));
        request.set(bhttp::field::content_type, "application/json");
        {
            std::lock_guard lock(mutex_);
            if (!protocol_version_.empty()) request.set("MCP-Protocol-Version", protocol_version_);
        }
        co_await exchange->send(std::move(request));
        co_await exchange->read_header(options_.connect_timeout);
    } catch (const exchange_failure& caught) {
        failure = caught;
    }
    posting_ = false;
    std::string problem;
    unsigned status = 0;
    if (failure) {
        switch (failure->kind()) {
            case failure_kind::cancelled:
                co_return;
            case failure_kind::unreachable:
                fail(std::string("cannot reach the server: ") + failure->what());
                co_return;
            case failure_kind::lost:
                fail(std::string("lost the connection while sending a message: ") +
                     failure->what());
                co_return;
            case failure_kind::timed_out:
            case failure_kind::malformed:
                problem = std::string("POST failed: ") + failure->what();
                break;
        }
    } else if (status = exchange->status(); status == 404) {
        fail("the server no longer knows this SSE session (POST answered 404 Not Found)");
        co_return;
    } else if (status < 200 || status >= 300) {
        const auto body = co_await read_error_body(*exchange);
        problem = "POST was refused: " + describe_http_status(status, exchange->reason(), body);
    }
    if (!problem.empty()) {
        if (message.id) {
            deliver(http_failure_response(*message.id, description() + ": " + problem, status));
        } else {
            log_->warn("{}: {}", description(), problem);
        }
    }
    pump();
}

}  // namespace ipybox::mcp::http::detail
