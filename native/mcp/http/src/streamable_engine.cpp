#include "streamable_engine.hpp"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <cctype>

namespace ipybox::mcp::http::detail {
namespace {

bool answers(const jsonrpc::decode_result& frame, const jsonrpc::request_id& id) {
    if (const auto* failure = std::get_if<jsonrpc::decode_failure>(&frame)) {
        return !failure->reply_expected && failure->id == id;  // an unusable answer to it
    }
    const auto* msg = std::get_if<jsonrpc::message>(&frame);
    if (msg == nullptr) return false;
    if (const auto* response = std::get_if<jsonrpc::response>(msg)) return response->id == id;
    if (const auto* error = std::get_if<jsonrpc::error_response>(msg)) return error->id == id;
    return false;
}

std::string millis(std::chrono::milliseconds duration) {
    return std::to_string(duration.count()) + " ms";
}

}  // namespace

streamable_engine::streamable_engine(boost::asio::io_context& io, http_transport_options options,
                                     url endpoint)
    : engine_base(io, std::move(options), std::move(endpoint)) {}

void streamable_engine::send(std::string body, std::optional<jsonrpc::request_id> id) {
    asio::post(strand_, [self = std::static_pointer_cast<streamable_engine>(shared_from_this()),
                         message = outgoing{std::move(body), std::move(id)}]() mutable {
        if (self->closing_) return;
        self->queue_.push_back(std::move(message));
        self->pump();
    });
}

void streamable_engine::set_protocol_version(const std::string& version) {
    std::lock_guard lock(mutex_);
    protocol_version_ = version;
}

std::optional<std::string> streamable_engine::session_id() const {
    std::lock_guard lock(mutex_);
    return session_id_;
}

void streamable_engine::pump() {
    while (!queue_.empty() && !barrier_busy_ && !closing_) {
        auto& next = queue_.front();
        if (next.id) {
            ++unsent_requests_;
        } else {
            // A notification or response waits until every earlier request is on the wire, and
            // holds back later messages until the server has accepted it.
            if (unsent_requests_ > 0) return;
            barrier_busy_ = true;
        }
        auto message = std::move(next);
        queue_.pop_front();
        spawn(post(std::move(message)), "a POST");
    }
}

request_type streamable_engine::make(bhttp::verb method, std::string body,
                                     const std::string& last_event_id) const {
    auto request = make_request(method, target_, options_.headers, std::move(body));
    if (method == bhttp::verb::post) {
        request.set(bhttp::field::accept, "application/json, text/event-stream");
        request.set(bhttp::field::content_type, "application/json");
    } else if (method == bhttp::verb::get) {
        request.set(bhttp::field::accept, "text/event-stream");
        request.set(bhttp::field::cache_control, "no-cache");
    }
    {
        std::lock_guard lock(mutex_);
        if (session_id_) request.set("Mcp-Session-Id", *session_id_);
        if (!protocol_version_.empty()) request.set("MCP-Protocol-Version", protocol_version_);
    }
    // Ids come from our SSE parser (never CR or LF); anything else unusual is not sent back.
    if (!last_event_id.empty() &&
        std::all_of(last_event_id.begin(), last_event_id.end(),
                    [](unsigned char c) { return c >= 0x20 && c != 0x7f; })) {
        request.set("Last-Event-ID", last_event_id);
    }
    return request;
}

bool streamable_engine::capture_session_id(const connection& exchange) {
    const auto value = exchange.header("Mcp-Session-Id");
    if (value.empty()) return true;
    {
        std::lock_guard lock(mutex_);
        if (session_id_) return true;
        if (is_valid_session_id(value)) {
            session_id_ = value;
            return true;
        }
    }
    fail(
        "the server sent an invalid Mcp-Session-Id (it must be 1-1024 visible ASCII "
        "characters)");
    return false;
}

bool streamable_engine::session_expired(unsigned status, bool sent_session_id) {
    if (status != 404 || !sent_session_id) return false;
    fail("the MCP session " + session_id().value_or("") +
         " has expired (the server answered 404 Not Found); a new session must be initialized");
    return true;
}

bool streamable_engine::take_event(const sse_event& event,
                                   const std::optional<jsonrpc::request_id>& awaiting) {
    auto frame = decode_event(event, awaiting);
    if (!frame) return false;
    const bool is_answer = awaiting && answers(*frame, *awaiting);
    deliver(std::move(*frame));
    return is_answer;
}

void streamable_engine::on_exchange_failure(const exchange_failure& failure,
                                            const std::optional<jsonrpc::request_id>& id,
                                            const char* what) {
    switch (failure.kind()) {
        case failure_kind::cancelled:
            return;
        case failure_kind::unreachable:
            fail(std::string("cannot reach the server: ") + failure.what());
            return;
        case failure_kind::lost:
            fail(std::string("lost the connection ") + what + ": " + failure.what());
            return;
        case failure_kind::timed_out:
        case failure_kind::malformed:
            break;
    }
    std::string message = std::string(what) + ": " + failure.what();
    if (failure.kind() == failure_kind::timed_out) {
        message += " (read timeout " + millis(options_.read_timeout) + ")";
    }
    if (id) {
        deliver(http_failure_response(*id, description() + ": " + message));
    } else {
        log_->warn("{}: {}", description(), message);
    }
}

asio::awaitable<void> streamable_engine::post(outgoing message) {
    bool unsent = message.id.has_value();
    auto request_written = [this, &unsent] {
        if (!unsent) return;
        unsent = false;
        --unsent_requests_;
        pump();
    };
    lease exchange(*this, target_, {options_.connect_timeout, options_.read_timeout});
    const carrier carrying(*this, message.id, exchange);
    const bool sent_session_id = session_id().has_value();
    std::optional<exchange_failure> failure;
    try {
        co_await exchange->send(make(bhttp::verb::post, std::move(message.body)));
        request_written();
        co_await exchange->read_header(options_.read_timeout);
    } catch (const exchange_failure& caught) {
        failure = caught;
    }
    request_written();
    if (!message.id) {  // the barrier this notification or response held
        barrier_busy_ = false;
        pump();
    }
    if (failure) {
        on_exchange_failure(
            *failure, message.id,
            message.id ? "while waiting for a response" : "while sending a message");
        co_return;
    }
    if (closing_ || !capture_session_id(*exchange)) co_return;
    const auto status = exchange->status();
    if (session_expired(status, sent_session_id)) co_return;
    if (status < 200 || status >= 300) {
        const auto body = co_await read_error_body(*exchange);
        const auto problem = "POST " + target_.origin() + target_.path + " was refused: " +
                             describe_http_status(status, exchange->reason(), body);
        if (message.id) {
            deliver(http_failure_response(*message.id, description() + ": " + problem, status));
        } else {
            log_->warn("{}: {}", description(), problem);
        }
        co_return;
    }
    maybe_listen();
    if (status == 202 || status == 204 || exchange->body_done()) co_return;

    const auto kind = classify_content_type(exchange->header("Content-Type"));
    if (kind == body_kind::event_stream) {
        co_await follow_post_stream(*exchange, message.id);
        co_return;
    }
    if (kind == body_kind::json) {
        std::optional<std::string> body;
        try {
            body = co_await read_json_body(*exchange);
        } catch (const exchange_failure& caught) {
            failure = caught;
        }
        if (failure) {
            on_exchange_failure(*failure, message.id, "while reading a response");
            co_return;
        }
        if (!body) {  // over the limit; the rest was not read
            if (message.id) {
                jsonrpc::envelope_hints answer;
                answer.id = message.id;
                answer.has_result = true;
                const auto length = exchange->header("Content-Length");
                std::optional<std::size_t> size;
                if (!length.empty() && length.size() < 19 &&
                    std::all_of(length.begin(), length.end(), ::isdigit)) {
                    size = std::stoull(length);
                }
                deliver(jsonrpc::unreadable_message(
                    jsonrpc::oversized_reason(size, options_.max_message_bytes), answer));
            } else {
                log_->warn("{}: refused a response body over {} bytes", description(),
                           options_.max_message_bytes);
            }
            co_return;
        }
        core::json_limits limits;
        limits.max_bytes = options_.max_message_bytes;
        for (auto& frame : decode_json_body(*body, limits)) {
            // The body answers this POST's request: an unreadable one is that request's answer.
            if (auto* bad = std::get_if<jsonrpc::decode_failure>(&frame);
                bad && message.id && bad->error.code == jsonrpc::error_code::parse_error) {
                bad->reply_expected = false;
                if (!bad->id) bad->id = message.id;
            }
            deliver(std::move(frame));
        }
        co_return;
    }
    if (message.id) {
        deliver(http_failure_response(*message.id,
                                      description() +
                                          ": the response has the unexpected Content-Type '" +
                                          exchange->header("Content-Type") + "'",
                                      status));
    }
}

asio::awaitable<void> streamable_engine::follow_post_stream(connection& exchange,
                                                            std::optional<jsonrpc::request_id> id) {
    sse_parser parser(options_.max_message_bytes);
    bool answered = false;
    std::optional<exchange_failure> failure;
    try {
        co_await read_events(
            exchange, parser,
            [this, &id, &answered](const sse_event& event) {
                if (take_event(event, id)) answered = true;
                return true;
            },
            id);
    } catch (const exchange_failure& caught) {
        failure = caught;
    }
    if (closing_ || !id || answered || abandoned_.count(*id) != 0) co_return;
    if (failure && failure->kind() == failure_kind::cancelled) co_return;
    if (!parser.last_event_id().empty()) {
        // The server may close a stream early and expect us to resume it (2025-11-25 polling).
        log_->debug("{}: the response stream of request {} ended early; resuming it", description(),
                    jsonrpc::to_string(*id));
        co_await get_stream(id, parser.last_event_id(), parser.retry(), true);
        co_return;
    }
    if (failure && failure->kind() == failure_kind::lost) {
        fail(std::string("lost the connection while waiting for a response: ") + failure->what());
        co_return;
    }
    const std::string why = failure ? failure->what() : "the stream ended";
    deliver(http_failure_response(
        *id, description() + ": the response stream closed without an answer (" + why +
                 ") and cannot be resumed (its events carried no ids)"));
}

asio::awaitable<std::optional<std::string>> streamable_engine::read_json_body(
    connection& exchange) {
    std::string body;
    std::string chunk(64 * 1024, '\0');
    while (true) {
        const auto count = co_await exchange.read_some(chunk.data(), chunk.size());
        if (count == 0) co_return body;
        if (body.size() + count > options_.max_message_bytes) {
            exchange.cancel();
            co_return std::nullopt;
        }
        body.append(chunk.data(), count);
        report_activity();
    }
}

streamable_engine::carrier::carrier(streamable_engine& engine,
                                    const std::optional<jsonrpc::request_id>& id,
                                    const lease& exchange)
    : engine_(engine), id_(id) {
    if (id_) engine_.carriers_[*id_] = exchange.shared();
}

streamable_engine::carrier::~carrier() {
    if (!id_) return;
    const auto found = engine_.carriers_.find(*id_);
    if (found != engine_.carriers_.end()) engine_.carriers_.erase(found);
    engine_.abandoned_.erase(*id_);
}

void streamable_engine::abandon_request(const jsonrpc::request_id& id) {
    asio::post(strand_,
               [self = std::static_pointer_cast<streamable_engine>(shared_from_this()), id] {
                   const auto found = self->carriers_.find(id);
                   if (found == self->carriers_.end()) return;
                   self->abandoned_.insert(id);
                   found->second->cancel();
               });
}

}  // namespace ipybox::mcp::http::detail
