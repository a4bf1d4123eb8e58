#include "ipybox/toolserver/tool_server.hpp"

#include <sys/socket.h>
#include <sys/stat.h>

#include <atomic>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "ipybox/core/log.hpp"
#include "ipybox/toolserver/routes.hpp"

namespace ipybox::toolserver {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using local = asio::local::stream_protocol;

struct tool_server::impl {
    tool_server_options options;
    route_context context;
    std::shared_ptr<spdlog::logger> log = core::logger("toolserver");
    asio::io_context io;
    local::acceptor acceptor{io};
    std::thread accept_thread;

    std::mutex mutex;
    std::condition_variable all_closed;
    std::set<int> open_sockets;
    std::size_t running = 0;
    bool stopping = false;

    impl(tool_server_options o, approval::gate& gate, tool_invoker& invoker,
         approval::gate* shell_gate, library_writer* library)
        : options(std::move(o)), context{options.token, gate, invoker, shell_gate, library} {}

    void accept_loop() noexcept {
        while (true) {
            local::socket socket(io);
            boost::system::error_code ec;
            acceptor.accept(socket, ec);
            std::unique_lock lock(mutex);
            if (stopping) return;
            if (ec) {
                log->warn("accept failed: {}", ec.message());
                continue;
            }
            if (running >= options.max_connections) {
                log->warn("refusing a connection: {} already open", running);
                continue;
            }
            ++running;
            open_sockets.insert(socket.native_handle());
            std::thread([this, s = std::move(socket)]() mutable { serve(std::move(s)); }).detach();
        }
    }

    void serve(local::socket socket) noexcept {
        const int fd = socket.native_handle();
        try {
            timeval idle{static_cast<long>(options.idle_timeout.count()), 0};
            ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &idle, sizeof idle);
            beast::flat_buffer buffer;
            while (true) {
                http::request_parser<http::string_body> parser;
                parser.body_limit(options.max_body_bytes);
                boost::system::error_code ec;
                http::read(socket, buffer, parser, ec);
                if (ec == http::error::body_limit) {
                    write_response(
                        socket,
                        {413,
                         R"({"error":{"type":"bad_request","message":"the request body is too large"}})"},
                        false);
                    break;
                }
                if (ec) break;  // closed, timed out, or malformed: drop the connection
                const auto& message = parser.get();
                http_request request{
                    std::string(message.method_string()), std::string(message.target()),
                    std::string(message[http::field::authorization]), message.body()};
                const auto response = handle_request(request, context);
                if (!write_response(socket, response, message.keep_alive())) break;
                if (!message.keep_alive()) break;
            }
        } catch (const std::exception& e) {
            log->error("tool server connection failed: {}", e.what());
        }
        boost::system::error_code ignored;
        socket.shutdown(local::socket::shutdown_both, ignored);
        std::lock_guard lock(mutex);
        open_sockets.erase(fd);
        socket.close(ignored);
        --running;
        all_closed.notify_all();
    }

    static bool write_response(local::socket& socket, const http_response& response,
                               bool keep_alive) {
        http::response<http::string_body> out{static_cast<http::status>(response.status), 11};
        out.set(http::field::content_type, "application/json");
        out.keep_alive(keep_alive);
        out.body() = response.body;
        out.prepare_payload();
        boost::system::error_code ec;
        http::write(socket, out, ec);
        return !ec;
    }
};

tool_server::tool_server(tool_server_options options, approval::gate& gate, tool_invoker& invoker,
                         approval::gate* shell_gate, library_writer* library)
    : impl_(std::make_unique<impl>(std::move(options), gate, invoker, shell_gate, library)) {
    auto& s = *impl_;
    std::error_code ignored;
    std::filesystem::remove(s.options.socket_path, ignored);
    s.acceptor.open(local());
    s.acceptor.bind(local::endpoint(s.options.socket_path.string()));
    // The private directory already keeps others out; the mode says the same on the socket.
    ::chmod(s.options.socket_path.c_str(), 0600);
    s.acceptor.listen();
    s.accept_thread = std::thread([this] { impl_->accept_loop(); });
    s.log->debug("tool server listening on {}", s.options.socket_path.string());
}

tool_server::~tool_server() {
    stop();
}

void tool_server::stop() {
    auto& s = *impl_;
    {
        std::lock_guard lock(s.mutex);
        if (s.stopping) return;
        s.stopping = true;
        // shutdown() wakes the blocked accept() and every blocked read on Linux.
        ::shutdown(s.acceptor.native_handle(), SHUT_RDWR);
        for (const int fd : s.open_sockets) ::shutdown(fd, SHUT_RDWR);
    }
    if (s.accept_thread.joinable()) s.accept_thread.join();
    std::unique_lock lock(s.mutex);
    // Connection threads use this object; they must all be gone before it is destroyed. A
    // handler blocked in approval or a tool call returns once its owner releases it.
    while (!s.all_closed.wait_for(lock, std::chrono::seconds(10), [&] { return s.running == 0; })) {
        s.log->warn("waiting for {} tool calls to finish before stopping", s.running);
    }
    boost::system::error_code ignored;
    s.acceptor.close(ignored);
    std::error_code removed;
    std::filesystem::remove(s.options.socket_path, removed);
}

const std::filesystem::path& tool_server::socket_path() const {
    return impl_->options.socket_path;
}

}  // namespace ipybox::toolserver
