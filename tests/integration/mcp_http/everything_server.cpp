#include "everything_server.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/ip/tcp.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "test_paths.hpp"

extern char** environ;

namespace ipybox::testing {
namespace {

using namespace std::chrono_literals;
namespace asio = boost::asio;

bool accepts_connections(std::uint16_t port) {
    asio::io_context io;
    asio::ip::tcp::socket socket(io);
    boost::system::error_code error;
    socket.connect({asio::ip::make_address("127.0.0.1"), port}, error);
    return !error;
}

std::string find_node() {
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path != nullptr ? path : "");
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
        const auto candidate = std::filesystem::path(dir.empty() ? "." : dir) / "node";
        if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
    return {};
}

}  // namespace

std::uint16_t free_port() {
    asio::io_context io;
    asio::ip::tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
    return acceptor.local_endpoint().port();
}

everything_server::everything_server(const std::string& mode) : mode_(mode) {
    const auto script = source_dir() / "tests" / "node" / "node_modules" / "@modelcontextprotocol" /
                        "server-everything" / "dist" / "index.js";
    REQUIRE_MESSAGE(std::filesystem::exists(script),
                    script.string() << " is missing: run `npm install --prefix tests/node` in "
                                    << source_dir().string());
    const auto node = find_node();
    REQUIRE_MESSAGE(!node.empty(), "node is not on PATH: install Node.js 20 or newer");

    port_ = free_port();
    log_path_ = fresh_directory("everything_" + mode) / "server.log";
    std::vector<std::string> env_strings;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        if (std::string_view(*entry).starts_with("PORT=")) continue;
        env_strings.emplace_back(*entry);
    }
    env_strings.push_back("PORT=" + std::to_string(port_));
    std::vector<char*> env;
    for (auto& entry : env_strings) env.push_back(entry.data());
    env.push_back(nullptr);
    std::string script_arg = script.string();
    std::vector<char*> argv{const_cast<char*>(node.c_str()), script_arg.data(), mode_.data(),
                            nullptr};
    const int log_fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    REQUIRE(log_fd >= 0);

    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
        ::setpgid(0, 0);
        const int null_fd = ::open("/dev/null", O_RDONLY);
        ::dup2(null_fd, 0);
        ::dup2(log_fd, 1);
        ::dup2(log_fd, 2);
        ::execve(argv[0], argv.data(), env.data());
        ::_exit(127);
    }
    ::close(log_fd);
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (!accepts_connections(port_)) {
        int status = 0;
        if (::waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            FAIL("server-everything (" << mode_ << ") exited before listening:\n" << log());
        }
        if (std::chrono::steady_clock::now() > deadline) {
            kill_now();  // the destructor will not run: this constructor throws
            FAIL("server-everything did not listen on port " << port_ << " within 20 s:\n"
                                                             << log());
        }
        std::this_thread::sleep_for(50ms);
    }
}

everything_server::~everything_server() {
    if (pid_ <= 0) return;
    ::kill(-pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {
        int status = 0;
        if (::waitpid(pid_, &status, WNOHANG) == pid_) return;
        std::this_thread::sleep_for(20ms);
    }
    ::kill(-pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
}

std::string everything_server::url() const {
    return "http://127.0.0.1:" + std::to_string(port_) + (mode_ == "sse" ? "/sse" : "/mcp");
}

void everything_server::kill_now() {
    if (pid_ <= 0) return;
    ::kill(-pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
}

std::string everything_server::log() const {
    std::ifstream in(log_path_);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

http_client::http_client(const nlohmann::json& server_params,
                         mcp::session::client_options options) {
    channel = mcp::http::make_http_transport(io, server_params, "everything");
    client = mcp::session::client_session::create(io, channel, std::move(options));
}

mcp::session::server_description http_client::connect() {
    auto result =
        await<mcp::session::server_description>([&](auto handler) { client->initialize(handler); });
    REQUIRE_MESSAGE(!result.error(), result.error_message());
    return result.value();
}

mcp::session::call_tool_result http_client::call(const std::string& tool, nlohmann::json arguments,
                                                 mcp::session::call_options options) {
    auto result = await<mcp::session::call_tool_result>(
        [&](auto handler) { client->call_tool(tool, std::move(arguments), options, handler); });
    REQUIRE_MESSAGE(!result.error(), result.error_message());
    return result.value();
}

std::string first_text(const mcp::session::call_tool_result& result) {
    for (const auto& block : result.content) {
        if (block.value("type", "") == "text") return block.value("text", "");
    }
    return {};
}

}  // namespace ipybox::testing
