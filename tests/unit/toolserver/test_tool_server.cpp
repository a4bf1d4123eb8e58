// The tool server over a real Unix socket, with a minimal Beast client.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <boost/asio/local/stream_protocol.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <future>
#include <thread>

#include "fakes.hpp"
#include "ipybox/core/private_directory.hpp"
#include "ipybox/toolserver/tool_server.hpp"

using namespace ipybox;
namespace asio = boost::asio;
namespace http = boost::beast::http;
using local = asio::local::stream_protocol;

namespace {

http::response<http::string_body> post(const std::filesystem::path& socket_path,
                                       const std::string& token, const std::string& body) {
    asio::io_context io;
    local::socket socket(io);
    socket.connect(local::endpoint(socket_path.string()));
    http::request<http::string_body> request{http::verb::post, "/run", 11};
    request.set(http::field::host, "localhost");
    if (!token.empty()) request.set(http::field::authorization, "Bearer " + token);
    request.body() = body;
    request.prepare_payload();
    http::write(socket, request);
    boost::beast::flat_buffer buffer;
    http::response<http::string_body> response;
    http::read(socket, buffer, response);
    return response;
}

}  // namespace

TEST_SUITE("toolserver.server") {
    TEST_CASE("serves authenticated calls on a socket only its owner can open") {
        core::private_directory dir("ipybox-ts-");
        testing::recording_invoker invoker;
        testing::fixed_gate gate(approval::verdict::approved);
        toolserver::tool_server server({dir.path() / "tools.sock", "tok"}, gate, invoker);

        struct stat info {};
        REQUIRE(::stat(server.socket_path().c_str(), &info) == 0);
        CHECK((info.st_mode & 0077) == 0);
        struct stat dir_info {};
        REQUIRE(::stat(dir.path().c_str(), &dir_info) == 0);
        CHECK((dir_info.st_mode & 0777) == 0700);

        const auto ok =
            post(server.socket_path(), "tok",
                 R"({"server_name":"everything","tool_name":"echo","tool_args":{"m":1}})");
        CHECK(ok.result_int() == 200);
        CHECK(nlohmann::json::parse(ok.body())["result"]["text"] == R"(ok:{"m":1})");
        CHECK(post(server.socket_path(), "", "{}").result_int() == 401);
    }

    TEST_CASE("handles concurrent calls") {
        core::private_directory dir("ipybox-ts-");
        testing::recording_invoker invoker;
        testing::fixed_gate gate(approval::verdict::approved);
        toolserver::tool_server server({dir.path() / "tools.sock", "tok"}, gate, invoker);
        std::vector<std::future<unsigned>> calls;
        for (int i = 0; i < 8; ++i) {
            calls.push_back(std::async(std::launch::async, [&, i] {
                return post(server.socket_path(), "tok",
                            R"({"server_name":"everything","tool_name":"echo","tool_args":{"i":)" +
                                std::to_string(i) + "}}")
                    .result_int();
            }));
        }
        for (auto& call : calls) CHECK(call.get() == 200);
        CHECK(invoker.calls.size() == 8);
    }

    TEST_CASE("refuses an oversized body without reading it all") {
        core::private_directory dir("ipybox-ts-");
        testing::recording_invoker invoker;
        testing::fixed_gate gate(approval::verdict::approved);
        toolserver::tool_server_options options{dir.path() / "tools.sock", "tok"};
        options.max_body_bytes = 1024;
        toolserver::tool_server server(options, gate, invoker);
        const auto response = post(server.socket_path(), "tok", std::string(4096, 'x'));
        CHECK(response.result_int() == 413);
        CHECK(invoker.calls.empty());
    }

    TEST_CASE("stop closes idle connections and removes the socket") {
        core::private_directory dir("ipybox-ts-");
        testing::recording_invoker invoker;
        testing::fixed_gate gate(approval::verdict::approved);
        auto server = std::make_unique<toolserver::tool_server>(
            toolserver::tool_server_options{dir.path() / "tools.sock", "tok"}, gate, invoker);
        asio::io_context io;
        local::socket idle(io);
        idle.connect(local::endpoint(server->socket_path().string()));
        const auto path = server->socket_path();
        server->stop();
        CHECK_FALSE(std::filesystem::exists(path));
        server.reset();
    }
}
