// Answers the kernel does not read count against the tool server's memory budget: a kernel that
// opens connections, asks for large answers and never reads them cannot make the server hold
// more than max_request_memory_bytes.
#include <doctest/doctest.h>

#include <boost/asio/local/stream_protocol.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <memory>
#include <optional>

#include "fakes.hpp"
#include "ipybox/core/private_directory.hpp"
#include "ipybox/toolserver/tool_server.hpp"

using namespace ipybox;
namespace asio = boost::asio;
namespace http = boost::beast::http;
using local = asio::local::stream_protocol;

namespace {

// One kernel connection: sends a call, then reads the answer's header only, or all of it.
struct kernel_connection {
    local::socket socket;
    boost::beast::flat_buffer buffer;
    std::optional<http::response_parser<http::string_body>> parser;

    kernel_connection(asio::io_context& io, const std::filesystem::path& path) : socket(io) {
        socket.connect(local::endpoint(path.string()));
    }
    void call(const std::string& tool) {
        http::request<http::string_body> request{http::verb::post, "/run", 11};
        request.set(http::field::host, "localhost");
        request.set(http::field::authorization, "Bearer tok");
        request.body() = R"({"server_name":"everything","tool_name":")" + tool + R"("})";
        request.prepare_payload();
        http::write(socket, request);
        parser.emplace();
        parser->body_limit(64u << 20);
    }
    // The status, once the answer has begun to arrive; the rest stays unread.
    unsigned status() {
        http::read_header(socket, buffer, *parser);
        return parser->get().result_int();
    }
    http::response<http::string_body> answer() {
        http::read(socket, buffer, *parser);
        return parser->release();
    }
};

}  // namespace

TEST_SUITE("toolserver.limits") {
    TEST_CASE("answers not read hold the memory budget, and one that does not fit is an error") {
        testing::running_loop loop;
        core::private_directory dir("ipybox-ts-");
        testing::recording_invoker invoker;
        testing::fixed_gate gate(approval::verdict::approved);
        toolserver::tool_server_options options{dir.path() / "tools.sock", "tok"};
        options.max_body_bytes = 64 * 1024;
        options.max_request_memory_bytes = 20u << 20;  // room for two answers of 8 MiB, not three
        toolserver::tool_server server(loop.io, options, gate, invoker);
        asio::io_context io;
        std::vector<std::unique_ptr<kernel_connection>> kernel;
        for (int i = 0; i < 4; ++i) {
            kernel.push_back(std::make_unique<kernel_connection>(io, server.socket_path()));
        }
        // Control: two answers of 8 MiB are served, and sit unread past the socket's buffers.
        kernel[0]->call("huge");
        CHECK(kernel[0]->status() == 200);
        kernel[1]->call("huge");
        CHECK(kernel[1]->status() == 200);
        // A third does not fit beside them: a small error instead, and the connection closes.
        kernel[2]->call("huge");
        const auto refused = kernel[2]->answer();
        CHECK(refused.result_int() == 503);
        CHECK(refused.body().find("memory budget") != std::string::npos);
        CHECK(refused.body().size() < 1024);
        CHECK_FALSE(refused.keep_alive());
        // A small answer still fits.
        kernel[3]->call("a");
        CHECK(kernel[3]->answer().result_int() == 200);

        // Once the first answer is read, its bytes come back: the next call on that connection
        // is read only after the answer was written, so its answer proves the release.
        CHECK(kernel[0]->answer().body().size() > (8u << 20));
        kernel[0]->call("a");
        CHECK(kernel[0]->answer().result_int() == 200);
        kernel[3]->call("huge");
        CHECK(kernel[3]->status() == 200);
        CHECK(kernel[3]->answer().body().size() > (8u << 20));
        CHECK(kernel[1]->answer().body().size() > (8u << 20));
    }
}
