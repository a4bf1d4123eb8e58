// The tool server over a real Unix socket, with a minimal Beast client.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/local/stream_protocol.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <condition_variable>
#include <csignal>
#include <functional>
#include <future>
#include <mutex>
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

std::size_t thread_count() {
    std::size_t count = 0;
    for ([[maybe_unused]] const auto& entry :
         std::filesystem::directory_iterator("/proc/self/task"))
        ++count;
    return count;
}

std::string request_text(const std::string& token, const std::string& body) {
    return "POST /run HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + token +
           "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\n\r\n" + body;
}

// Reads until the server closes the connection (or `limit` bytes); the bytes read.
std::size_t read_until_closed(local::socket& socket, std::size_t limit) {
    std::size_t total = 0;
    std::vector<char> chunk(1 << 16);
    boost::system::error_code ec;
    while (total < limit) {
        const auto got = socket.read_some(asio::buffer(chunk), ec);
        if (ec) break;
        total += got;
    }
    return total;
}

// A running server with the fakes, its options adjusted by the test.
struct served {
    testing::running_loop loop;
    core::private_directory dir{"ipybox-ts-"};
    testing::recording_invoker invoker;
    testing::fixed_gate gate{approval::verdict::approved};
    std::unique_ptr<toolserver::tool_server> server;

    explicit served(const std::function<void(toolserver::tool_server_options&)>& adjust = {}) {
        toolserver::tool_server_options options{dir.path() / "tools.sock", "tok"};
        if (adjust) adjust(options);
        server = std::make_unique<toolserver::tool_server>(loop.io, options, gate, invoker);
    }
    const std::filesystem::path& socket_path() const { return server->socket_path(); }
};

}  // namespace

TEST_SUITE("toolserver.server") {
    TEST_CASE("serves authenticated calls on a socket only its owner can open") {
        testing::running_loop loop;
        core::private_directory dir("ipybox-ts-");
        testing::recording_invoker invoker;
        testing::fixed_gate gate(approval::verdict::approved);
        toolserver::tool_server server(loop.io, {dir.path() / "tools.sock", "tok"}, gate, invoker);

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
        testing::running_loop loop;
        core::private_directory dir("ipybox-ts-");
        testing::recording_invoker invoker;
        testing::fixed_gate gate(approval::verdict::approved);
        toolserver::tool_server server(loop.io, {dir.path() / "tools.sock", "tok"}, gate, invoker);
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
        testing::running_loop loop;
        core::private_directory dir("ipybox-ts-");
        testing::recording_invoker invoker;
        testing::fixed_gate gate(approval::verdict::approved);
        toolserver::tool_server_options options{dir.path() / "tools.sock", "tok"};
        options.max_body_bytes = 1024;
        toolserver::tool_server server(loop.io, options, gate, invoker);
        const auto response = post(server.socket_path(), "tok", std::string(4096, 'x'));
        CHECK(response.result_int() == 413);
        CHECK(invoker.calls.empty());
    }

    TEST_CASE("stop closes idle connections and removes the socket") {
        testing::running_loop loop;
        core::private_directory dir("ipybox-ts-");
        testing::recording_invoker invoker;
        testing::fixed_gate gate(approval::verdict::approved);
        auto server = std::make_unique<toolserver::tool_server>(
            loop.io, toolserver::tool_server_options{dir.path() / "tools.sock", "tok"}, gate,
            invoker);
        asio::io_context io;
        local::socket idle(io);
        idle.connect(local::endpoint(server->socket_path().string()));
        const auto path = server->socket_path();
        server->stop();
        CHECK_FALSE(std::filesystem::exists(path));
        server.reset();
    }

    TEST_CASE("idle and stalled connections hold no thread of ipybox") {
        served server;
        CHECK(post(server.socket_path(), "tok", R"({"server_name":"everything","tool_name":"a"})")
                  .result_int() == 200);
        const auto before = thread_count();
        asio::io_context io;
        std::vector<std::unique_ptr<local::socket>> held;
        for (int i = 0; i < 40; ++i) {
            held.push_back(std::make_unique<local::socket>(io));
            held.back()->connect(local::endpoint(server.socket_path().string()));
            // Half of them stall in the middle of their headers.
            if (i % 2 == 0) asio::write(*held.back(), asio::buffer(std::string("POST /run HT")));
        }
        // Accepted in order: once a later connection is answered, the 40 are open on the server.
        CHECK(post(server.socket_path(), "tok", R"({"server_name":"everything","tool_name":"b"})")
                  .result_int() == 200);
        // The control is the design this replaced: a thread per connection, 40 more here.
        CHECK(thread_count() <= before + 1);
    }

    TEST_CASE("a client that stops sending is disconnected after idle_timeout") {
        served server([](auto& options) { options.idle_timeout = std::chrono::seconds(1); });
        asio::io_context io;
        local::socket stalled(io);
        stalled.connect(local::endpoint(server.socket_path().string()));
        asio::write(stalled, asio::buffer(std::string("POST /run HTTP/1.1\r\nHost: x\r\n")));
        CHECK(read_until_closed(stalled, 1) == 0);  // closed by the server, nothing answered
        CHECK(server.invoker.calls.empty());
    }

    TEST_CASE("a client that never takes its answer is disconnected after write_timeout") {
        served server([](auto& options) { options.write_timeout = std::chrono::seconds(1); });
        asio::io_context io;
        local::socket greedy(io);
        greedy.connect(local::endpoint(server.socket_path().string()));
        asio::write(greedy, asio::buffer(request_text(
                                "tok", R"({"server_name":"everything","tool_name":"huge"})")));
        // Others are served meanwhile.
        CHECK(post(server.socket_path(), "tok", R"({"server_name":"everything","tool_name":"a"})")
                  .result_int() == 200);
        std::this_thread::sleep_for(std::chrono::seconds(3));
        // The answer is over 8 MiB; what the buffers held before the deadline is far less.
        CHECK(read_until_closed(greedy, 16 << 20) < (8u << 20));
    }

    TEST_CASE("connections beyond max_connections are refused, and served once one closes") {
        served server([](auto& options) { options.max_connections = 2; });
        asio::io_context io;
        auto first = std::make_unique<local::socket>(io);
        first->connect(local::endpoint(server.socket_path().string()));
        local::socket second(io);
        second.connect(local::endpoint(server.socket_path().string()));
        local::socket third(io);
        third.connect(local::endpoint(server.socket_path().string()));
        CHECK(read_until_closed(third, 1) == 0);  // refused: closed at once
        first.reset();
        const auto body = R"({"server_name":"everything","tool_name":"after"})";
        bool answered = false;
        for (int attempt = 0; attempt < 50 && !answered; ++attempt) {
            try {  // the server notices the closed connection on its loop, soon
                answered = post(server.socket_path(), "tok", body).result_int() == 200;
            } catch (const boost::system::system_error&) {
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
        }
        CHECK(answered);
    }
}

namespace {

// An invoker whose calls wait until the test lets them go, counting how many are in at once.
class holding_invoker : public toolserver::tool_invoker {
  public:
    bool knows_server(const std::string&) const override { return true; }
    void invoke(const approval::tool_call&, toolserver::outcome_handler done) override {
        {
            std::lock_guard lock(mutex_);
            if (!released_) {
                held_.push_back(std::move(done));
                most_inside_ = std::max(most_inside_, held_.size());
                changed_.notify_all();
                return;
            }
        }
        done(answer());
    }
    void wait_until_inside(std::size_t count) {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return held_.size() >= count; });
    }
    void release_all() {
        std::vector<toolserver::outcome_handler> held;
        {
            std::lock_guard lock(mutex_);
            released_ = true;
            held.swap(held_);
        }
        for (auto& done : held) done(answer());
    }
    std::size_t most_inside() {
        std::lock_guard lock(mutex_);
        return most_inside_;
    }

  private:
    static toolserver::tool_outcome answer() {
        return toolserver::tool_outcome::success({{"text", "done"}});
    }
    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<toolserver::outcome_handler> held_;
    std::size_t most_inside_ = 0;
    bool released_ = false;
};

// A valid /run body of about `bytes` bytes.
std::string large_body(std::size_t bytes) {
    return R"({"server_name":"s","tool_name":"t","tool_args":{"text":")" + std::string(bytes, 'x') +
           R"("}})";
}

// `count` requests of 200 KiB sent at once to a server whose budget takes `admitted` of them:
// how many the invoker held at once, and what each was answered.
std::pair<std::size_t, std::vector<unsigned>> parallel_large_requests(std::size_t count,
                                                                      std::size_t admitted) {
    testing::running_loop loop;
    core::private_directory dir("ipybox-ts-");
    holding_invoker invoker;
    testing::fixed_gate gate(approval::verdict::approved);
    const auto body = large_body(200 * 1024);
    toolserver::tool_server_options options{dir.path() / "tools.sock", "tok"};
    options.max_body_bytes = body.size();
    options.max_request_memory_bytes = admitted * toolserver::request_cost_of(options, body.size());
    toolserver::tool_server server(loop.io, options, gate, invoker);
    std::vector<std::future<unsigned>> answers;
    for (std::size_t i = 0; i < count; ++i) {
        answers.push_back(std::async(std::launch::async, [&] {
            return post(server.socket_path(), "tok", body).result_int();
        }));
    }
    // Every request is then either in the invoker or waiting for the budget, unread.
    invoker.wait_until_inside(admitted);
    while (server.requests_waiting() < count - admitted) std::this_thread::yield();
    const auto held = invoker.most_inside();
    invoker.release_all();
    std::vector<unsigned> statuses;
    for (auto& answer : answers) statuses.push_back(answer.get());
    return {held, statuses};
}

}  // namespace

TEST_SUITE("toolserver.limits") {
    TEST_CASE("a deeply nested JSON body is answered 400 and the server lives on") {
        served server;
        const std::string deep =
            R"({"server_name":"everything","tool_name":"echo","tool_args":{"a":)" +
            std::string(200000, '[') + std::string(200000, ']') + "}}";
        const auto refused = post(server.socket_path(), "tok", deep);
        CHECK(refused.result_int() == 400);
        CHECK(refused.body().find("nesting deeper than") != std::string::npos);
        CHECK(server.invoker.calls.empty());
        CHECK(post(server.socket_path(), "tok", R"({"server_name":"everything","tool_name":"a"})")
                  .result_int() == 200);

        // Control: parsed as the routes did before (nlohmann's parse, then a copy of the
        // arguments, which recurses once a level), the body kills the process that handles it.
        const pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            ::signal(SIGSEGV, SIG_DFL);  // doctest's handler would report from the child
            ::signal(SIGBUS, SIG_DFL);
            const auto parsed = nlohmann::json::parse(deep);
            const auto arguments = parsed.value("tool_args", nlohmann::json());
            ::_exit(arguments.is_object() ? 0 : 1);
        }
        int status = 0;
        REQUIRE(::waitpid(child, &status, 0) == child);
        CHECK(WIFSIGNALED(status));
    }

    TEST_CASE("parallel large requests wait for the memory budget instead of being read") {
        // Four requests of 200 KiB with room for two: two are handled, two wait unread, and all
        // four are answered once the first ones finish.
        const auto [held, statuses] = parallel_large_requests(4, 2);
        CHECK(held == 2);
        CHECK(statuses == std::vector<unsigned>{200, 200, 200, 200});
        // Control: with room for all four, all four are in the invoker at once.
        const auto [held_unbounded, statuses_unbounded] = parallel_large_requests(4, 4);
        CHECK(held_unbounded == 4);
        CHECK(statuses_unbounded == std::vector<unsigned>{200, 200, 200, 200});
    }

    TEST_CASE("headers over max_header_bytes are answered 431, unread") {
        const auto with_header = [](std::size_t limit) {
            served server([limit](auto& options) { options.max_header_bytes = limit; });
            asio::io_context io;
            local::socket socket(io);
            socket.connect(local::endpoint(server.socket_path().string()));
            http::request<http::string_body> request{http::verb::get, "/status", 11};
            request.set(http::field::authorization, "Bearer tok");
            request.set("X-Padding", std::string(16 * 1024, 'p'));
            http::write(socket, request);
            boost::beast::flat_buffer buffer;
            http::response<http::string_body> response;
            http::read(socket, buffer, response);
            return response.result_int();
        };
        CHECK(with_header(8 * 1024) == 431);
        CHECK(with_header(32 * 1024) == 200);  // control: the same request under a larger limit
    }

    TEST_CASE("options whose budget cannot take the largest request are refused") {
        const auto budget_of_one_body = [](toolserver::tool_server_options& options) {
            options.max_request_memory_bytes = options.max_body_bytes;
        };
        CHECK_THROWS_AS(served{budget_of_one_body}, std::invalid_argument);
    }
}

TEST_SUITE("toolserver.async") {
    // Sixteen calls sent on sixteen connections from this thread, without waiting.
    struct pending_calls {
        asio::io_context io;
        std::vector<std::unique_ptr<local::socket>> sockets;

        pending_calls(const std::filesystem::path& socket_path, std::size_t count) {
            for (std::size_t i = 0; i < count; ++i) {
                sockets.push_back(std::make_unique<local::socket>(io));
                sockets.back()->connect(local::endpoint(socket_path.string()));
                asio::write(*sockets.back(),
                            asio::buffer(request_text(
                                "tok", R"({"server_name":"everything","tool_name":"t)" +
                                           std::to_string(i) + R"("})")));
            }
        }
        std::vector<unsigned> statuses() {
            std::vector<unsigned> out;
            for (auto& socket : sockets) {
                boost::beast::flat_buffer buffer;
                http::response<http::string_body> response;
                http::read(*socket, buffer, response);
                out.push_back(response.result_int());
            }
            return out;
        }
    };

    TEST_CASE("calls waiting for approval hold no thread, and each gets its own decision") {
        testing::running_loop loop;
        core::private_directory dir("ipybox-ts-");
        testing::recording_invoker invoker;
        testing::deferred_gate gate;
        toolserver::tool_server server(loop.io, {dir.path() / "tools.sock", "tok"}, gate, invoker);
        const auto before = thread_count();
        pending_calls calls(server.socket_path(), 16);
        REQUIRE(gate.wait_for_pending(16));
        // The control is the design this replaced: a worker thread per request, 16 more here.
        CHECK(thread_count() == before);
        // Decided from another thread, as a front end does.
        std::thread([&] { gate.decide_all(approval::verdict::approved); }).join();
        CHECK(calls.statuses() == std::vector<unsigned>(16, 200));
        CHECK(invoker.calls.size() == 16);
    }

    TEST_CASE("a decision that comes after stop() reaches neither the invoker nor the socket") {
        testing::running_loop loop;
        core::private_directory dir("ipybox-ts-");
        testing::recording_invoker invoker;
        testing::deferred_gate gate;
        auto server = std::make_unique<toolserver::tool_server>(
            loop.io, toolserver::tool_server_options{dir.path() / "tools.sock", "tok"}, gate,
            invoker);
        pending_calls calls(server->socket_path(), 3);
        REQUIRE(gate.wait_for_pending(3));
        server->stop();
        server.reset();
        gate.decide_all(approval::verdict::approved);  // the owner's objects may be gone now
        CHECK(invoker.calls.empty());
        for (auto& socket : calls.sockets) CHECK(read_until_closed(*socket, 1) == 0);
    }
}
