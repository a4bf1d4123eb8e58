// GET streams of the Streamable HTTP transport: the listening stream for server-initiated
// messages, resumption of broken response streams with Last-Event-ID, and the session DELETE.
#include <boost/asio/post.hpp>

#include "streamable_engine.hpp"

namespace ipybox::mcp::http::detail {
namespace {

// The farewell DELETE must not hold up close() for the full read timeout.
constexpr std::chrono::milliseconds delete_timeout = std::chrono::seconds(5);

}  // namespace

void streamable_engine::maybe_listen() {
    if (!options_.listen || listening_ || closing_) return;
    {
        std::lock_guard lock(mutex_);
        if (protocol_version_.empty()) return;  // not initialized yet
    }
    listening_ = true;
    spawn(get_stream(std::nullopt, {}, std::nullopt, false), "the listening GET stream");
}

asio::awaitable<void> streamable_engine::get_stream(std::optional<jsonrpc::request_id> awaiting,
                                                    std::string last_event_id,
                                                    std::optional<std::chrono::milliseconds> retry,
                                                    bool wait_first) {
    const std::string label =
        awaiting ? "resuming the response stream of request " + jsonrpc::to_string(*awaiting)
                 : std::string("the listening stream");
    auto give_up = [this, &awaiting, &label](const std::string& why) {
        if (awaiting) {
            deliver(http_failure_response(*awaiting, description() + ": " + label + ": " + why));
        } else {
            log_->warn("{}: stopped {}: {}", description(), label, why);
        }
    };
    int attempts_without_progress = 0;
    bool wait = wait_first;
    while (!closing_) {
        if (wait && !co_await sleep(retry.value_or(options_.default_reconnect_delay))) co_return;
        wait = true;
        if (awaiting && abandoned_.count(*awaiting) != 0) co_return;
        lease exchange(*this, target_, {options_.connect_timeout, options_.read_timeout});
        // The request's own POST registered the id; its carrier forgets it when the POST ends.
        if (awaiting) carriers_[*awaiting] = exchange.shared();
        const bool sent_session_id = session_id().has_value();
        std::optional<exchange_failure> failure;
        bool progressed = false;
        bool answered = false;
        try {
            co_await exchange->send(make(bhttp::verb::get, {}, last_event_id));
            co_await exchange->read_header(options_.read_timeout);
        } catch (const exchange_failure& caught) {
            failure = caught;
        }
        if (closing_) co_return;
        if (failure && failure->kind() == failure_kind::unreachable) {
            fail(label + ": cannot reach the server: " + failure->what());
            co_return;
        }
        if (!failure) {
            const auto status = exchange->status();
            if (session_expired(status, sent_session_id)) co_return;
            const auto kind = classify_content_type(exchange->header("Content-Type"));
            if (status == 405 && !awaiting) {
                log_->debug("{}: the server offers no GET stream (405)", description());
                co_return;
            }
            if (status != 200 || kind != body_kind::event_stream) {
                const auto body = co_await read_error_body(*exchange);
                const auto problem = status == 200
                                         ? "the response is not an SSE stream"
                                         : describe_http_status(status, exchange->reason(), body);
                if (awaiting || status < 500) {
                    give_up("the server refused it: " + problem);
                    co_return;
                }
                log_->debug("{}: {}: {}", description(), label, problem);
            } else {
                sse_parser parser(options_.max_message_bytes);
                try {
                    co_await read_events(
                        *exchange, parser,
                        [this, &awaiting, &answered, &progressed](const sse_event& event) {
                            progressed = true;
                            if (take_event(event, awaiting)) answered = true;
                            return !answered;
                        },
                        awaiting);
                } catch (const exchange_failure& caught) {
                    failure = caught;
                }
                if (answered || closing_) co_return;
                if (!parser.last_event_id().empty() && parser.last_event_id() != last_event_id) {
                    last_event_id = parser.last_event_id();
                    progressed = true;
                }
                if (parser.retry()) retry = parser.retry();
                // An idle listening stream that reaches the read timeout is simply reopened.
                if (!awaiting && failure && failure->kind() == failure_kind::timed_out) {
                    progressed = true;
                }
            }
        }
        if (failure && failure->kind() == failure_kind::cancelled) co_return;
        if (failure) log_->debug("{}: {}: {}", description(), label, failure->what());
        attempts_without_progress = progressed ? 0 : attempts_without_progress + 1;
        if (attempts_without_progress > options_.max_reconnect_attempts) {
            give_up("no events after " + std::to_string(attempts_without_progress) + " attempts" +
                    (failure ? std::string(" (") + failure->what() + ")" : ""));
            co_return;
        }
    }
}

void streamable_engine::close() {
    asio::post(strand_, [self = std::static_pointer_cast<streamable_engine>(shared_from_this())] {
        if (self->closing_) return;
        self->closing_ = true;
        self->queue_.clear();
        self->cancel_all();
        if (self->options_.terminate_on_close && self->session_id()) {
            self->spawn(self->terminate_session(), "the session DELETE");
        } else {
            self->report_requested_close();
        }
    });
}

asio::awaitable<void> streamable_engine::terminate_session() {
    // Not leased: cancel_all() has already run, and this request must still go out.
    const auto limit = std::min(options_.connect_timeout, delete_timeout);
    auto exchange =
        std::make_shared<connection>(strand_, target_, tls_, exchange_limits{limit, limit});
    try {
        co_await exchange->send(make(bhttp::verb::delete_));
        co_await exchange->read_header(limit);
        const auto status = exchange->status();
        if (status == 405) {
            log_->debug("{}: the server does not let clients end sessions (405)", description());
        } else if (status >= 300 && status != 404) {
            log_->info("{}: DELETE of the session answered HTTP {}", description(), status);
        }
    } catch (const exchange_failure& failure) {
        log_->debug("{}: DELETE of the session failed: {}", description(), failure.what());
    }
    report_requested_close();
}

}  // namespace ipybox::mcp::http::detail
