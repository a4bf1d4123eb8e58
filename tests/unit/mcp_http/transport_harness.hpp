#pragma once
// Drives one transport directly: records what it delivers and how it closes.
#include <doctest/doctest.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <memory>
#include <thread>

#include "ipybox/mcp/transport/transport.hpp"

namespace ipybox::testing {

namespace jsonrpc = ipybox::mcp::jsonrpc;

struct transport_harness {
    boost::asio::io_context io;
    std::shared_ptr<ipybox::mcp::transport::transport> channel;
    std::vector<jsonrpc::decode_result> received;
    std::vector<ipybox::mcp::transport::close_info> closed;

    void start(std::shared_ptr<ipybox::mcp::transport::transport> transport) {
        channel = std::move(transport);
        channel->start(
            [this](jsonrpc::decode_result frame) { received.push_back(std::move(frame)); },
            [this](const ipybox::mcp::transport::close_info& info) { closed.push_back(info); });
    }

    template <class Predicate>
    bool run_until(Predicate done, std::chrono::milliseconds limit = std::chrono::seconds(5)) {
        const auto deadline = std::chrono::steady_clock::now() + limit;
        while (!done() && std::chrono::steady_clock::now() < deadline) {
            if (io.stopped()) io.restart();
            if (io.run_for(std::chrono::milliseconds(5)) == 0) {
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        }
        return done();
    }
    void run_for(std::chrono::milliseconds duration) {
        run_until([] { return false; }, duration);
    }
    bool wait_for_messages(std::size_t count,
                           std::chrono::milliseconds limit = std::chrono::seconds(5)) {
        return run_until([&] { return received.size() >= count; }, limit);
    }
    bool wait_for_close(std::chrono::milliseconds limit = std::chrono::seconds(5)) {
        return run_until([&] { return !closed.empty(); }, limit);
    }

    const jsonrpc::message& message(std::size_t index) const {
        REQUIRE(index < received.size());
        REQUIRE(std::holds_alternative<jsonrpc::message>(received[index]));
        return std::get<jsonrpc::message>(received[index]);
    }
};

inline jsonrpc::request request(std::int64_t id, std::string method,
                                jsonrpc::json params = jsonrpc::json::object()) {
    return jsonrpc::request{id, std::move(method), std::move(params)};
}

inline jsonrpc::notification notification(std::string method) {
    return jsonrpc::notification{std::move(method), nullptr};
}

inline std::string result_json(std::int64_t id, const std::string& result = "{}") {
    return R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"result":)" + result + "}";
}

}  // namespace ipybox::testing
