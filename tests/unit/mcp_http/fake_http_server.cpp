#include "fake_http_server.hpp"

#include <doctest/doctest.h>
#include <sys/socket.h>

#include <algorithm>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <cstdlib>
#include <sstream>
#include <utility>

namespace ipybox::testing {
namespace asio = boost::asio;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

namespace {

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

std::string status_line(unsigned status) {
    const auto reason = bhttp::obsolete_reason(static_cast<bhttp::status>(status));
    return "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason) + "\r\n";
}

}  // namespace

std::string recorded_request::header(const std::string& name) const {
    const auto found = headers.find(name);
    return found == headers.end() ? std::string() : found->second;
}

bool recorded_request::has_header(const std::string& name) const {
    return headers.count(name) != 0;
}

reply::reply(std::function<void(std::string_view)> write, std::function<void()> drop,
             const std::atomic<bool>& stopping)
    : write_(std::move(write)), drop_(std::move(drop)), stopping_(stopping) {}

void reply::send(unsigned status, std::string body, header_list headers) {
    std::string head = status_line(status);
    for (const auto& [name, value] : headers) head += name + ": " + value + "\r\n";
    head += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
    write_(head + body);
    finished_ = true;
}

void reply::send_json(unsigned status, const std::string& json, header_list headers) {
    headers.emplace("Content-Type", "application/json");
    send(status, json, std::move(headers));
}

void reply::start_stream(unsigned status, header_list headers) {
    headers.emplace("Content-Type", "text/event-stream");
    std::string head = status_line(status);
    for (const auto& [name, value] : headers) head += name + ": " + value + "\r\n";
    head += "Transfer-Encoding: chunked\r\n\r\n";
    write_(head);
    streaming_ = true;
}

void reply::chunk(std::string_view data) {
    if (data.empty()) return;
    std::ostringstream size;
    size << std::hex << data.size();
    write_(size.str() + "\r\n" + std::string(data) + "\r\n");
}

void reply::event(const std::string& data, const std::string& id, const std::string& type) {
    std::string text;
    if (!type.empty()) text += "event: " + type + "\n";
    if (!id.empty()) text += "id: " + id + "\n";
    text += "data: " + data + "\n\n";
    chunk(text);
}

void reply::end() {
    if (streaming_) write_("0\r\n\r\n");
    finished_ = true;
}

void reply::drop() {
    drop_();
    finished_ = true;
}

bool reply::sleep(std::chrono::milliseconds duration) const {
    const auto until = std::chrono::steady_clock::now() + duration;
    while (std::chrono::steady_clock::now() < until) {
        if (stopping_) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return !stopping_;
}

certificate_files make_test_certificate(const std::filesystem::path& directory) {
    certificate_files files{directory / "cert.pem", directory / "key.pem"};
    const std::string command =
        "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost"
        " -addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout '" +
        files.key.string() + "' -out '" + files.certificate.string() + "' >/dev/null 2>&1";
    REQUIRE_MESSAGE(std::system(command.c_str()) == 0,
                    "creating a test certificate failed; is the openssl command installed?");
    return files;
}

struct fake_http_server::impl {
    asio::io_context io;
    tcp::acceptor acceptor{io};
    std::optional<asio::ssl::context> tls;
};

fake_http_server::fake_http_server(handler on_request, std::optional<certificate_files> tls)
    : on_request_(std::move(on_request)), impl_(std::make_unique<impl>()), tls_(tls.has_value()) {
    if (tls) {
        impl_->tls.emplace(asio::ssl::context::tls_server);
        impl_->tls->use_certificate_chain_file(tls->certificate.string());
        impl_->tls->use_private_key_file(tls->key.string(), asio::ssl::context::pem);
    }
    const tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), 0);
    impl_->acceptor.open(endpoint.protocol());
    impl_->acceptor.set_option(tcp::acceptor::reuse_address(true));
    impl_->acceptor.bind(endpoint);
    impl_->acceptor.listen();
    port_ = impl_->acceptor.local_endpoint().port();
    accept_thread_ = std::thread([this] { accept_loop(); });
}

fake_http_server::~fake_http_server() {
    stopping_ = true;
    ::shutdown(impl_->acceptor.native_handle(), SHUT_RDWR);
    accept_thread_.join();
    {
        std::lock_guard lock(mutex_);
        for (const int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
    }
    for (auto& thread : threads_) thread.join();
}

std::string fake_http_server::url(const std::string& path) const {
    return std::string(tls_ ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_) + path;
}

std::vector<recorded_request> fake_http_server::requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
}

std::size_t fake_http_server::request_count() const {
    std::lock_guard lock(mutex_);
    return requests_.size();
}

bool fake_http_server::wait_for_requests(std::size_t count, std::chrono::milliseconds limit) const {
    std::unique_lock lock(mutex_);
    return arrived_.wait_for(lock, limit, [&] { return requests_.size() >= count; });
}

void fake_http_server::accept_loop() {
    while (!stopping_) {
        boost::system::error_code error;
        tcp::socket socket(impl_->io);
        impl_->acceptor.accept(socket, error);
        if (error || stopping_) return;
        const int fd = socket.release();
        std::lock_guard lock(mutex_);
        open_fds_.push_back(fd);
        const auto connection = threads_.size() + 1;
        threads_.emplace_back([this, fd, connection] { serve(fd, connection); });
    }
}

void fake_http_server::serve(int fd, std::size_t connection) {
    tcp::socket socket(impl_->io, tcp::v4(), fd);
    std::optional<asio::ssl::stream<tcp::socket&>> secure;
    boost::system::error_code error;
    if (tls_) {
        secure.emplace(socket, *impl_->tls);
        secure->handshake(asio::ssl::stream_base::server, error);
        if (error) ++handshake_failures_;
    }
    auto write = [&](std::string_view bytes) {
        boost::system::error_code ignored;
        if (secure) {
            asio::write(*secure, asio::buffer(bytes.data(), bytes.size()), ignored);
        } else {
            asio::write(socket, asio::buffer(bytes.data(), bytes.size()), ignored);
        }
    };
    bool dropped = false;
    auto drop = [&] {
        dropped = true;
        ::shutdown(fd, SHUT_RDWR);
    };
    boost::beast::flat_buffer buffer;
    while (!error && !dropped && !stopping_) {
        bhttp::request<bhttp::string_body> message;
        if (secure) {
            bhttp::read(*secure, buffer, message, error);
        } else {
            bhttp::read(socket, buffer, message, error);
        }
        if (error) break;
        recorded_request request;
        request.connection = connection;
        request.received = std::chrono::steady_clock::now();
        request.method = std::string(message.method_string());
        request.target = std::string(message.target());
        request.body = message.body();
        for (const auto& field : message) {
            request.headers[lower(std::string(field.name_string()))] = std::string(field.value());
        }
        {
            std::lock_guard lock(mutex_);
            requests_.push_back(request);
        }
        arrived_.notify_all();
        reply answer(write, drop, stopping_);
        on_request_(request, answer);
        if (!answer.finished()) {
            if (answer.streaming()) {
                answer.end();
            } else {
                answer.send(500, "the test scripted no reply");
            }
        }
        if (!message.keep_alive()) break;
    }
    boost::system::error_code ignored;
    socket.shutdown(tcp::socket::shutdown_both, ignored);
    std::lock_guard lock(mutex_);
    open_fds_.erase(std::remove(open_fds_.begin(), open_fds_.end(), fd), open_fds_.end());
}

}  // namespace ipybox::testing
