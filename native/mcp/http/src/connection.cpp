#include "connection.hpp"

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <limits>

#include "ipybox/core/version.hpp"

namespace ipybox::mcp::http::detail {
namespace {

constexpr std::uint32_t max_header_bytes = 64 * 1024;
constexpr std::size_t read_chunk_bytes = 16 * 1024;

std::string millis(std::chrono::milliseconds duration) {
    return std::to_string(duration.count()) + " ms";
}

// Errors of the connection itself (as opposed to a response that is not valid HTTP).
bool is_connection_error(const boost::system::error_code& error) {
    return error.category() != bhttp::make_error_code(bhttp::error::end_of_stream).category() ||
           error == bhttp::error::end_of_stream || error == bhttp::error::partial_message;
}

bool is_ip_address(const std::string& host) {
    boost::system::error_code error;
    asio::ip::make_address(host, error);
    return !error;
}

}  // namespace

std::shared_ptr<asio::ssl::context> make_tls_context(const std::string& extra_ca_file) {
    auto context = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
    SSL_CTX_set_min_proto_version(context->native_handle(), TLS1_2_VERSION);
    context->set_default_verify_paths();
    if (!extra_ca_file.empty()) {
        boost::system::error_code error;
        context->load_verify_file(extra_ca_file, error);
        if (error) {
            throw std::runtime_error("cannot load the CA file " + extra_ca_file + ": " +
                                     error.message());
        }
    }
    context->set_verify_mode(asio::ssl::verify_peer);
    return context;
}

request_type make_request(bhttp::verb method, const url& target, const header_map& headers,
                          std::string body) {
    request_type request{method, target.target(), 11};
    request.set(bhttp::field::host, target.host_header());
    request.set(bhttp::field::user_agent, std::string("ipybox/") + core::version);
    for (const auto& [name, value] : headers) request.set(name, value);
    if (method == bhttp::verb::post || !body.empty()) {
        request.body() = std::move(body);
        request.prepare_payload();
    }
    return request;
}

connection::connection(strand_type strand, url target, std::shared_ptr<asio::ssl::context> tls,
                       exchange_limits limits)
    : strand_(std::move(strand)),
      target_(std::move(target)),
      tls_context_(std::move(tls)),
      limits_(limits),
      resolver_(strand_),
      resolve_deadline_(strand_) {
    if (target_.uses_tls() && !tls_context_) {
        throw std::logic_error("an https connection needs a TLS context");
    }
}

beast::tcp_stream& connection::lowest_layer() {
    return tls_ ? beast::get_lowest_layer(*tls_) : *plain_;
}

exchange_failure connection::failure(const boost::system::error_code& error, const char* step,
                                     failure_kind kind_if_not_timeout) const {
    if (cancelled_) return {failure_kind::cancelled, std::string(step) + " was cancelled"};
    if (error == beast::error::timeout) {
        return {failure_kind::timed_out, std::string(step) + " timed out"};
    }
    return {kind_if_not_timeout, std::string(step) + " failed: " + error.message()};
}

asio::awaitable<void> connection::connect() {
    using asio::redirect_error;
    using asio::use_awaitable;
    const auto where = target_.host_header();
    boost::system::error_code error;

    // The resolver has no deadline of its own: a timer cancels it.
    resolve_deadline_.expires_after(limits_.connect);
    resolve_deadline_.async_wait(asio::bind_executor(
        strand_, [weak = weak_from_this()](const boost::system::error_code& timer_error) {
            auto self = weak.lock();
            if (timer_error || !self) return;
            self->resolve_timed_out_ = true;
            self->resolver_.cancel();
        }));
    const auto endpoints = co_await resolver_.async_resolve(
        target_.host, std::to_string(target_.port), asio::ip::tcp::resolver::numeric_service,
        redirect_error(use_awaitable, error));
    resolve_deadline_.cancel();
    if (cancelled_) throw exchange_failure(failure_kind::cancelled, "connecting was cancelled");
    if (resolve_timed_out_) {
        throw exchange_failure(
            failure_kind::unreachable,
            "resolving " + target_.host + " timed out after " + millis(limits_.connect));
    }
    if (error) {
        throw exchange_failure(failure_kind::unreachable,
                               "cannot resolve " + target_.host + ": " + error.message());
    }

    if (target_.uses_tls()) {
        tls_.emplace(strand_, *tls_context_);
        SSL* ssl = tls_->native_handle();
        if (is_ip_address(target_.host)) {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), target_.host.c_str());
        } else {
            SSL_set_tlsext_host_name(ssl, target_.host.c_str());
            SSL_set1_host(ssl, target_.host.c_str());
        }
    } else {
        plain_.emplace(strand_);
    }
    lowest_layer().expires_after(limits_.connect);
    co_await lowest_layer().async_connect(endpoints, redirect_error(use_awaitable, error));
    if (cancelled_) throw exchange_failure(failure_kind::cancelled, "connecting was cancelled");
    if (error == beast::error::timeout) {
        throw exchange_failure(
            failure_kind::unreachable,
            "connecting to " + where + " timed out after " + millis(limits_.connect));
    }
    if (error) {
        throw exchange_failure(failure_kind::unreachable,
                               "cannot connect to " + where + ": " + error.message());
    }
    if (!tls_) co_return;

    lowest_layer().expires_after(limits_.connect);
    co_await tls_->async_handshake(asio::ssl::stream_base::client,
                                   redirect_error(use_awaitable, error));
    if (cancelled_) throw exchange_failure(failure_kind::cancelled, "connecting was cancelled");
    if (error) {
        std::string detail = error == beast::error::timeout
                                 ? "timed out after " + millis(limits_.connect)
                                 : error.message();
        const auto verdict = SSL_get_verify_result(tls_->native_handle());
        if (verdict != X509_V_OK) {
            detail = std::string("certificate verification failed: ") +
                     X509_verify_cert_error_string(verdict);
        }
        throw exchange_failure(failure_kind::unreachable,
                               "the TLS handshake with " + where + " failed: " + detail);
    }
}

asio::awaitable<void> connection::send(request_type request) {
    using asio::redirect_error;
    using asio::use_awaitable;
    if (cancelled_) throw exchange_failure(failure_kind::cancelled, "the request was cancelled");
    co_await connect();

    boost::system::error_code error;
    lowest_layer().expires_after(limits_.connect);
    if (tls_) {
        co_await bhttp::async_write(*tls_, request, redirect_error(use_awaitable, error));
    } else {
        co_await bhttp::async_write(*plain_, request, redirect_error(use_awaitable, error));
    }
    if (error || cancelled_) throw failure(error, "sending the request", failure_kind::lost);
}

asio::awaitable<void> connection::read_header(std::chrono::milliseconds limit) {
    using asio::redirect_error;
    using asio::use_awaitable;
    if (cancelled_) throw exchange_failure(failure_kind::cancelled, "the request was cancelled");
    boost::system::error_code error;
    parser_.emplace();
    parser_->header_limit(max_header_bytes);
    parser_->body_limit((std::numeric_limits<std::uint64_t>::max)());
    lowest_layer().expires_after(limit);
    if (tls_) {
        co_await bhttp::async_read_header(*tls_, buffer_, *parser_,
                                          redirect_error(use_awaitable, error));
    } else {
        co_await bhttp::async_read_header(*plain_, buffer_, *parser_,
                                          redirect_error(use_awaitable, error));
    }
    if (error || cancelled_) {
        throw failure(error, "waiting for the response",
                      is_connection_error(error) ? failure_kind::lost : failure_kind::malformed);
    }
}

unsigned connection::status() const {
    return parser_ ? parser_->get().result_int() : 0;
}

std::string connection::reason() const {
    return parser_ ? std::string(parser_->get().reason()) : std::string();
}

std::string connection::header(std::string_view name) const {
    if (!parser_) return {};
    const auto& fields = parser_->get().base();
    const auto found = fields.find(beast::string_view(name.data(), name.size()));
    return found == fields.end() ? std::string() : std::string(found->value());
}

bool connection::body_done() const {
    return !parser_ || parser_->is_done();
}

asio::awaitable<std::size_t> connection::read_some(char* data, std::size_t size) {
    using asio::redirect_error;
    using asio::use_awaitable;
    while (true) {
        if (cancelled_) throw exchange_failure(failure_kind::cancelled, "reading was cancelled");
        if (body_done()) co_return 0;
        auto& body = parser_->get().body();
        body.data = data;
        body.size = size;
        body.more = true;
        boost::system::error_code error;
        lowest_layer().expires_after(limits_.read);
        if (tls_) {
            co_await bhttp::async_read_some(*tls_, buffer_, *parser_,
                                            redirect_error(use_awaitable, error));
        } else {
            co_await bhttp::async_read_some(*plain_, buffer_, *parser_,
                                            redirect_error(use_awaitable, error));
        }
        if (error == bhttp::error::need_buffer) error = {};
        if (error || cancelled_) {
            throw failure(
                error, "reading the response",
                is_connection_error(error) ? failure_kind::lost : failure_kind::malformed);
        }
        const auto count = size - parser_->get().body().size;
        if (count > 0) co_return count;
    }
}

asio::awaitable<std::string> connection::read_all(std::size_t limit) {
    std::string body;
    std::string chunk(read_chunk_bytes, '\0');
    while (true) {
        const auto count = co_await read_some(chunk.data(), chunk.size());
        if (count == 0) co_return body;
        if (body.size() + count > limit) {
            throw exchange_failure(failure_kind::malformed,
                                   "the response body exceeds " + std::to_string(limit) + " bytes");
        }
        body.append(chunk.data(), count);
    }
}

void connection::cancel() {
    if (cancelled_) return;
    cancelled_ = true;
    resolver_.cancel();
    resolve_deadline_.cancel();
    if (plain_ || tls_) {
        boost::system::error_code ignored;
        lowest_layer().socket().close(ignored);
    }
}

}  // namespace ipybox::mcp::http::detail
