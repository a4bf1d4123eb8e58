#include "engine_base.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "ipybox/core/log.hpp"
#include "ipybox/core/redactor.hpp"
#include "ipybox/core/untrusted_text.hpp"

namespace ipybox::mcp::http::detail {
namespace {

constexpr std::size_t error_body_limit = 64 * 1024;
constexpr std::size_t event_read_chunk = 16 * 1024;

std::string shorten(std::string_view text, std::size_t limit = 200) {
    if (text.size() <= limit) return std::string(text);
    return std::string(text.substr(0, limit)) + "...";
}

}  // namespace

std::string describe_server(const std::string& name, const url& target) {
    const auto where = target.origin() + target.path;
    return name.empty() ? "MCP server at " + where : "MCP server '" + name + "' (" + where + ")";
}

engine_base::engine_base(boost::asio::io_context& io, http_transport_options options, url target)
    : strand_(asio::make_strand(io)),
      options_(std::move(options)),
      target_(std::move(target)),
      log_(core::logger("mcp.http")),
      description_(describe_server(options_.name, target_)) {
    // Created even for http URLs: an https endpoint event or resumption may still need it, and
    // the CA file is checked up front rather than at the first https request.
    tls_ = make_tls_context(options_.extra_ca_file);
}

void engine_base::spawn(asio::awaitable<void> task, std::string what) {
    asio::co_spawn(
        strand_, std::move(task),
        [self = shared_from_this(), what = std::move(what)](const std::exception_ptr& error) {
            if (!error) return;
            try {
                std::rethrow_exception(error);
            } catch (const std::exception& e) {
                self->log_->error("{}: {} failed unexpectedly: {}", self->description_, what,
                                  e.what());
            } catch (...) {
                self->log_->error("{}: {} failed with an unknown exception", self->description_,
                                  what);
            }
            self->fail(what + " failed unexpectedly");
        });
}

asio::awaitable<bool> engine_base::sleep(std::chrono::milliseconds duration) {
    if (closing_) co_return false;
    auto timer = std::make_shared<asio::steady_timer>(strand_, duration);
    sleepers_.insert(timer);
    boost::system::error_code error;
    co_await timer->async_wait(asio::redirect_error(asio::use_awaitable, error));
    sleepers_.erase(timer);
    co_return !error && !closing_;
}

asio::awaitable<std::string> engine_base::read_error_body(connection& exchange) {
    try {
        co_return co_await exchange.read_all(error_body_limit);
    } catch (const exchange_failure&) {
        co_return std::string();
    }
}

asio::awaitable<void> engine_base::read_events(connection& exchange, sse_parser& parser,
                                               std::function<bool(const sse_event&)> on_event,
                                               const std::optional<jsonrpc::request_id>& awaiting) {
    std::string chunk(event_read_chunk, '\0');
    while (true) {
        const auto count = co_await exchange.read_some(chunk.data(), chunk.size());
        if (count == 0) {
            parser.finish();
            co_return;
        }
        bool keep_reading = true;
        for (const auto& event : parser.feed(std::string_view(chunk.data(), count))) {
            keep_reading = on_event(event) && keep_reading;
        }
        for (const auto& envelope : parser.take_oversized()) {
            auto failure = jsonrpc::unreadable_message(
                jsonrpc::oversized_reason(std::nullopt, options_.max_message_bytes), envelope);
            if (auto frame = unusable_answer(std::move(failure), awaiting, "(not kept)")) {
                deliver(std::move(*frame));
            }
        }
        if (parser.inside_event()) report_activity();
        if (!keep_reading) co_return;
    }
}

std::optional<jsonrpc::decode_result> engine_base::decode_event(
    const sse_event& event, const std::optional<jsonrpc::request_id>& awaiting) {
    if (event.data.empty()) return std::nullopt;
    if (event.type != "message") {
        log_->debug("{}: ignoring an SSE event of type '{}'", description_, shorten(event.type));
        return std::nullopt;
    }
    core::json_limits limits;
    limits.max_bytes = options_.max_message_bytes;
    auto frame = jsonrpc::decode(event.data, limits);
    if (auto* failure = std::get_if<jsonrpc::decode_failure>(&frame);
        failure && failure->error.code == jsonrpc::error_code::parse_error) {
        return unusable_answer(std::move(*failure), awaiting, event.data);
    }
    return frame;
}

std::optional<jsonrpc::decode_result> engine_base::unusable_answer(
    jsonrpc::decode_failure failure, const std::optional<jsonrpc::request_id>& awaiting,
    std::string_view excerpt) {
    if (failure.reply_expected) {
        // Quoted and escaped, redacted before it is cut (as the stdio transport does).
        log_->warn("{}: ignoring an SSE message that cannot be read ({}): {}", description_,
                   failure.error.message,
                   core::quote_untrusted(core::redact_secrets(excerpt), 200));
        return std::nullopt;
    }
    if (!failure.id && awaiting) failure.id = awaiting;
    return jsonrpc::decode_result(std::move(failure));
}

void engine_base::report_activity() {
    if (callbacks_.activity) callbacks_.activity();
}

void engine_base::deliver(jsonrpc::decode_result incoming) {
    if (closing_ || !callbacks_.deliver) return;
    callbacks_.deliver(std::move(incoming));
}

void engine_base::fail(const std::string& reason) {
    if (closing_) return;
    closing_ = true;
    log_->warn("{}: {}", description_, reason);
    cancel_all();
    if (reported_) return;
    reported_ = true;
    if (callbacks_.closed) callbacks_.closed({description_ + ": " + reason, false, {}, {}});
}

void engine_base::report_requested_close() {
    if (reported_) return;
    reported_ = true;
    log_->debug("{}: closed", description_);
    if (callbacks_.closed)
        callbacks_.closed({description_ + " was closed by the client", true, {}, {}});
}

void engine_base::cancel_all() {
    const auto connections = active_;
    for (const auto& exchange : connections) exchange->cancel();
    const auto timers = sleepers_;
    for (const auto& timer : timers) timer->cancel();
}

engine_base::lease::lease(engine_base& engine, const url& target, exchange_limits limits)
    : engine_(engine),
      connection_(std::make_shared<connection>(engine.strand_, target, engine.tls_, limits)) {
    engine_.active_.insert(connection_);
    if (engine_.closing_) connection_->cancel();
}

engine_base::lease::~lease() {
    engine_.active_.erase(connection_);
}

}  // namespace ipybox::mcp::http::detail
