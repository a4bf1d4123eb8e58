#include "connection.hpp"

#include <array>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http.hpp>

#include "ipybox/core/log.hpp"
#include "ipybox/core/version.hpp"
#include "ipybox/mcp/jsonrpc/codec.hpp"
#include "post_transport.hpp"

namespace ipybox::mcp::http_server::detail {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using error_code = boost::system::error_code;

constexpr auto use_awaitable = asio::use_awaitable;

std::string sse_event(const jsonrpc::message& msg) {
    return "event: message\ndata: " + jsonrpc::encode(msg) + "\n\n";
}

// The 2025-11-25 error for a session id we do not know (the TypeScript SDK's wording and code,
// which its clients recognise and answer by initializing again).
http_reply session_not_found() {
    return error_reply(404, -32001, "Session not found");
}

http_reply payload_too_large(std::size_t limit) {
    return error_reply(
        413, -32600,
        "Payload Too Large: the body may have at most " + std::to_string(limit) + " bytes");
}

// The 401 of RFC 6750 for a request without a valid bearer token (which it does not repeat).
http_reply unauthorized() {
    auto reply = error_reply(401, -32001, "Unauthorized: a valid bearer token is required");
    reply.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"ipybox\"");
    return reply;
}

// Counts a request as being served for as long as it lives (a named local of the coroutine).
class request_in_flight {
  public:
    explicit request_in_flight(std::atomic<std::size_t>& count) : count_(count) { ++count_; }
    ~request_in_flight() { --count_; }
    request_in_flight(const request_in_flight&) = delete;
    request_in_flight& operator=(const request_in_flight&) = delete;

  private:
    std::atomic<std::size_t>& count_;
};

// Who sent `head`: the token's principal, "local" without authentication, nullopt when refused.
std::optional<principal> principal_of(const request_head& head,
                                      const std::optional<token_table>& tokens) {
    if (!tokens) return principal{"local", {}};
    const auto authorization = head.header("authorization");
    if (!authorization || head.duplicated("authorization")) return std::nullopt;
    return tokens->authenticate(*authorization);
}

}  // namespace

connection::connection(asio::ip::tcp::socket socket, std::shared_ptr<server_state> server)
    : strand_(asio::make_strand(server->io)),
      stream_(std::move(socket)),
      server_(std::move(server)),
      watch_done_(strand_) {
    ++server_->connections;
}

connection::~connection() {
    --server_->connections;
}

void connection::start() {
    asio::co_spawn(
        strand_, [self = shared_from_this()] { return self->run(); }, asio::detached);
}

void connection::stop() {
    asio::post(strand_, [self = shared_from_this()] {
        error_code ignored;
        self->stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
        self->stream_.socket().close(ignored);
    });
}

asio::awaitable<void> connection::run() {
    try {
        while (co_await serve_one()) {
        }
    } catch (const std::exception& e) {
        core::logger("http")->warn("an HTTP connection failed: {}", e.what());
    }
    co_await close_gracefully();
}

asio::awaitable<void> connection::close_gracefully() {
    // A lingering close: what the client still sends (a refused body) is read and dropped for a
    // moment, so that closing with unread data does not reset the connection before the client
    // has read our reply.
    error_code error;
    stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_send, error);
    std::array<char, 4096> discard{};
    std::size_t drained = 0;
    stream_.expires_after(std::chrono::seconds(1));
    while (!error && drained < 256 * 1024) {
        drained += co_await stream_.async_read_some(asio::buffer(discard),
                                                    asio::redirect_error(use_awaitable, error));
    }
    stream_.socket().close(error);
}

asio::awaitable<bool> connection::serve_one() {
    const auto& options = server_->options;
    bhttp::request_parser<bhttp::empty_body> head_parser;
    head_parser.header_limit(static_cast<std::uint32_t>(options.limits.max_header_bytes));
    head_parser.body_limit(options.endpoint.max_body_bytes);
    error_code error;
    stream_.expires_after(options.limits.header_timeout);
    co_await bhttp::async_read_header(stream_, buffer_, head_parser,
                                      asio::redirect_error(use_awaitable, error));
    if (error == bhttp::error::header_limit) {
        const auto reply = error_reply(431, -32600, "Request Header Fields Too Large");
        co_await write_reply(reply, false);
        co_return false;
    }
    if (error == bhttp::error::body_limit) {  // a Content-Length over the limit
        const auto reply = payload_too_large(options.endpoint.max_body_bytes);
        co_await write_reply(reply, false);
        co_return false;
    }
    if (error) co_return false;  // closed, timed out (slowloris), or not HTTP
    request_head head;
    head.method = std::string(head_parser.get().method_string());
    head.target = std::string(head_parser.get().target());
    for (const auto& field : head_parser.get()) {
        const auto name = field.name_string();
        const auto value = field.value();
        head.add({name.data(), name.size()}, {value.data(), value.size()});
    }
    const bool keep_alive = head_parser.get().keep_alive();
    if (auto refused = check_head(head, options.endpoint)) {
        co_await write_reply(*refused, false);  // the body, if any, is left unread
        co_return false;
    }
    const auto caller = principal_of(head, options.tokens);
    if (!caller) {
        co_await write_reply(unauthorized(), false);
        co_return false;
    }
    if (server_->draining) {
        const auto reply = error_reply(503, -32000, "Service Unavailable: ipybox is shutting down");
        co_await write_reply(reply, false);
        co_return false;
    }
    const request_in_flight serving(server_->requests_in_flight);
    const client_identity identity{caller->name, caller->limits, false};
    const auto& principal = identity.principal;
    if (head.method == "DELETE") co_return co_await serve_delete(head, principal, keep_alive);

    bhttp::request_parser<bhttp::string_body> parser(std::move(head_parser));
    stream_.expires_after(options.limits.body_timeout);
    co_await bhttp::async_read(stream_, buffer_, parser,
                               asio::redirect_error(use_awaitable, error));
    if (error == bhttp::error::body_limit) {
        const auto reply = payload_too_large(options.endpoint.max_body_bytes);
        co_await write_reply(reply, false);
        co_return false;
    }
    if (error) co_return false;
    core::json_limits limits;
    limits.max_bytes = options.endpoint.max_body_bytes;
    auto verdict = classify_post(head, parser.get().body(), limits);
    if (auto* reply = std::get_if<http_reply>(&verdict)) {
        const bool written = co_await write_reply(*reply, keep_alive);
        co_return written&& keep_alive;
    }
    if (auto* call = std::get_if<modern_call>(&verdict)) {
        co_return co_await serve_modern(*call, identity, keep_alive);
    }
    co_return co_await serve_legacy(std::get<legacy_call>(verdict), identity, keep_alive);
}

asio::awaitable<bool> connection::serve_modern(modern_call& call, const client_identity& caller,
                                               bool keep_alive) {
    const auto* request = std::get_if<jsonrpc::request>(&call.message);
    if (request == nullptr) {
        // 2026-07-28 defines no client notification on HTTP: accepted and dropped.
        const http_reply accepted{202, {}, {}};
        const bool written = co_await write_reply(accepted, keep_alive);
        co_return written&& keep_alive;
    }
    auto sink = std::make_shared<exchange>(strand_, request->id);
    auto channel = std::make_shared<post_transport>(server_->io, std::move(call.message), sink);
    auto session =
        server_->factory(channel, client_identity{caller.principal, caller.limits, true});
    session->start();
    const std::function<void()> gone = [channel] { channel->client_gone(); };
    const header_list no_headers;
    const bool keep = co_await stream_answer(sink, true, no_headers, keep_alive, gone);
    session->close();
    co_return keep;
}

asio::awaitable<bool> connection::serve_legacy(legacy_call& call, const client_identity& caller,
                                               bool keep_alive) {
    std::shared_ptr<legacy_session> entry;
    if (!call.session_id) {
        entry = server_->sessions.open(caller);
        if (!entry) {
            const auto reply =
                error_reply(503, -32000,
                            "Service Unavailable: too many open MCP sessions (at most " +
                                std::to_string(server_->options.limits.max_legacy_sessions) +
                                "); end one with DELETE or wait until one is idle");
            co_await write_reply(reply, false);
            co_return false;
        }
    } else {
        entry = server_->sessions.find(*call.session_id, caller.principal);
        if (!entry) {
            const auto reply = session_not_found();
            const bool written = co_await write_reply(reply, keep_alive);
            co_return written&& keep_alive;
        }
    }
    const header_list headers{{"Mcp-Session-Id", entry->id}};
    const auto* request = std::get_if<jsonrpc::request>(&call.message);
    if (request == nullptr) {
        entry->channel->post(std::move(call.message), nullptr);
        const http_reply accepted{202, {}, {}};
        const bool written = co_await write_reply(accepted, keep_alive, headers);
        co_return written&& keep_alive;
    }
    const bool opening = !call.session_id;
    auto sink = std::make_shared<exchange>(strand_, request->id);
    const auto id = request->id;
    entry->channel->post(std::move(call.message), sink);
    const std::function<void()> gone = [entry, id] { entry->channel->stream_gone(id); };
    const bool keep = co_await stream_answer(sink, false, headers, keep_alive, gone);
    if (opening && !entry->session->is_initialized()) {
        server_->sessions.close(entry->id, caller.principal);  // initialize failed: no session
    }
    co_return keep;
}

asio::awaitable<bool> connection::serve_delete(const request_head& head,
                                               const std::string& principal, bool keep_alive) {
    const auto id = head.header("mcp-session-id").value_or("");
    const auto reply =
        server_->sessions.close(id, principal) ? http_reply{200, {}, {}} : session_not_found();
    const bool written = co_await write_reply(reply, keep_alive);
    co_return written&& keep_alive;
}

asio::awaitable<bool> connection::stream_answer(const std::shared_ptr<exchange>& sink, bool modern,
                                                const header_list& headers, bool keep_alive,
                                                const std::function<void()>& gone) {
    const auto& limits = server_->options.limits;
    watching_ = true;  // before the watcher runs: stop_watching() may come first
    asio::co_spawn(
        strand_, [self = shared_from_this(), sink] { return self->watch(sink); }, asio::detached);
    bool streaming = false;
    auto deadline = std::chrono::steady_clock::now() + limits.json_window;
    const auto leave = [&] {
        sink->finish();
        gone();
    };
    for (;;) {
        std::optional<jsonrpc::message> msg;
        const auto woke = co_await sink->next(deadline, msg);
        if (woke == exchange::wake::gone) {
            leave();
            co_return false;
        }
        if (woke == exchange::wake::message && !streaming && sink->is_final(*msg)) {
            sink->finish();
            co_await stop_watching();
            http_reply reply{status_for_answer(*msg, modern), {}, jsonrpc::encode(*msg)};
            reply.headers.emplace_back("Content-Type", "application/json");
            const bool written = co_await write_reply(reply, keep_alive, headers);
            co_return written&& keep_alive;
        }
        std::string bytes;
        if (!streaming) {
            streaming = true;
            bytes =
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: "
                "no-cache\r\nX-Accel-Buffering: no\r\nConnection: close\r\nServer: ipybox/" +
                std::string(core::version) + "\r\n";
            for (const auto& [name, value] : headers) bytes += name + ": " + value + "\r\n";
            bytes += "\r\n";
        }
        const bool final = woke == exchange::wake::message && sink->is_final(*msg);
        if (woke == exchange::wake::message) {
            bytes += sse_event(*msg);
        } else if (bytes.empty()) {
            bytes = ":\n\n";  // keep-alive comment
        }
        deadline = std::chrono::steady_clock::now() + limits.keepalive;
        if (!co_await write_raw(bytes)) {
            leave();
            co_return false;
        }
        if (final) {
            sink->finish();
            co_return false;  // the end of an SSE body is the end of the connection
        }
    }
}

asio::awaitable<bool> connection::write_reply(const http_reply& reply, bool keep_alive) {
    static const header_list none;
    return write_reply(reply, keep_alive, none);
}

asio::awaitable<bool> connection::write_reply(const http_reply& reply, bool keep_alive,
                                              const header_list& extra) {
    bhttp::response<bhttp::string_body> response{static_cast<bhttp::status>(reply.status), 11};
    response.set(bhttp::field::server, std::string("ipybox/") + core::version);
    for (const auto& [name, value] : reply.headers) response.set(name, value);
    for (const auto& [name, value] : extra) response.set(name, value);
    response.body() = reply.body;
    response.keep_alive(keep_alive);
    response.prepare_payload();
    error_code error;
    stream_.expires_after(server_->options.limits.write_timeout);
    co_await bhttp::async_write(stream_, response, asio::redirect_error(use_awaitable, error));
    co_return !error;
}

asio::awaitable<bool> connection::write_raw(const std::string& bytes) {
    error_code error;
    stream_.expires_after(server_->options.limits.write_timeout);
    co_await asio::async_write(stream_, asio::buffer(bytes),
                               asio::redirect_error(use_awaitable, error));
    co_return !error;
}

asio::awaitable<void> connection::watch(std::shared_ptr<exchange> sink) {
    while (!stopping_watch_) {
        error_code error;
        const auto read = co_await stream_.socket().async_read_some(
            buffer_.prepare(4096), asio::redirect_error(use_awaitable, error));
        if (error) {
            if (!stopping_watch_) sink->client_gone();
            break;
        }
        buffer_.commit(read);
        // Pipelined requests wait in the buffer; past a head's worth, stop reading (the client is
        // not gone, just eager).
        if (buffer_.size() >= server_->options.limits.max_header_bytes) break;
    }
    watching_ = false;
    watch_done_.cancel();
}

asio::awaitable<void> connection::stop_watching() {
    stopping_watch_ = true;
    if (watching_) {
        error_code ignored;
        stream_.socket().cancel(ignored);
        while (watching_) {
            watch_done_.expires_after(std::chrono::seconds(5));
            co_await watch_done_.async_wait(asio::redirect_error(use_awaitable, ignored));
        }
    }
    stopping_watch_ = false;
}

}  // namespace ipybox::mcp::http_server::detail
