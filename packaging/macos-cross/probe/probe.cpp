// The macOS cross-compilation probe: each dependency of ipybox used as ipybox uses it, so that a
// link for aarch64-macos and x86_64-macos proves the toolchain (zig, the Debian headers, OpenSSL
// built for the target) on its own. It runs on macOS as a smoke test; here it is only linked.
//
//   ipybox_macos_probe [--message TEXT]
//
// Asio: an io_context (kqueue on macOS) carries one write and one read over a local stream socket
// pair, the read a C++20 coroutine (co_spawn, awaitable, use_awaitable) as ipybox's. Beast: an HTTP
// request serialised to text. OpenSSL: HMAC-SHA256 and SHA-256 of it, and a TLS client context
// through Asio's SSL layer. nlohmann_json carries the results, spdlog prints them, CLI11 reads the
// one option.
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <array>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/local/connect_pair.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#if defined(__APPLE__) && !defined(BOOST_ASIO_HAS_KQUEUE)
#error "Asio on macOS is expected to use kqueue"
#endif
#if !defined(BOOST_ASIO_HAS_CO_AWAIT) || !defined(BOOST_ASIO_HAS_STD_COROUTINE)
#error "Asio's C++20 coroutines are expected (packaging/macos-cross/toolchain.cmake)"
#endif
#if defined(__linux__)
#error "the probe is built for macOS only (packaging/macos-cross/build.sh)"
#endif

namespace {

std::string hex(const unsigned char* bytes, unsigned int size) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string text;
    for (unsigned int i = 0; i < size; ++i) {
        text += digits[bytes[i] >> 4];
        text += digits[bytes[i] & 0xf];
    }
    return text;
}

std::string hmac_sha256(const std::string& key, const std::string& data) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int size = 0;
    HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
         reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest.data(), &size);
    return hex(digest.data(), size);
}

std::string sha256(const std::string& data) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int size = 0;
    EVP_Digest(data.data(), data.size(), digest.data(), &size, EVP_sha256(), nullptr);
    return hex(digest.data(), size);
}

std::string http_request(const std::string& body) {
    namespace http = boost::beast::http;
    http::request<http::string_body> request{http::verb::post, "/mcp", 11};
    request.set(http::field::host, "127.0.0.1");
    request.set(http::field::content_type, "application/json");
    request.body() = body;
    request.prepare_payload();
    std::ostringstream text;
    text << request;
    return text.str();
}

boost::asio::awaitable<void> read_all(boost::asio::local::stream_protocol::socket& socket,
                                      std::vector<char>& into) {
    co_await boost::asio::async_read(socket, boost::asio::buffer(into), boost::asio::use_awaitable);
}

// One write and one read (a coroutine) across a socket pair, both on the loop.
std::string echo_over_socket_pair(const std::string& message) {
    namespace asio = boost::asio;
    asio::io_context loop;
    asio::local::stream_protocol::socket left(loop);
    asio::local::stream_protocol::socket right(loop);
    asio::local::connect_pair(left, right);
    std::vector<char> received(message.size());
    asio::async_write(left, asio::buffer(message), [](boost::system::error_code, std::size_t) {});
    asio::co_spawn(loop, read_all(right, received), asio::detached);
    loop.run();
    return {received.begin(), received.end()};
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"ipybox macOS cross-compilation probe"};
    std::string message = "hello from the probe";
    app.add_option("--message", message, "The text sent over the socket pair");
    CLI11_PARSE(app, argc, argv);

    boost::asio::ssl::context tls(boost::asio::ssl::context::tls_client);
    tls.set_verify_mode(boost::asio::ssl::verify_peer);

    const std::string echoed = echo_over_socket_pair(message);
    const nlohmann::json body = {{"message", echoed}};
    const std::string request = http_request(body.dump());
    const nlohmann::json result = {{"echoed", echoed == message},
                                   {"request_bytes", request.size()},
                                   {"sha256", sha256(request)},
                                   {"hmac_sha256", hmac_sha256("probe-key", request)}};
    spdlog::info("probe: {}", result.dump());
    return echoed == message ? 0 : 1;
}
