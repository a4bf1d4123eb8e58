#pragma once
// The hostile-server tier's harness: hostile_server.py started in one mode, and ipybox's MCP
// client pool (what `ipybox run` and `ipybox mcp` use) connected to it with small deadlines.
#include <doctest/doctest.h>

#include <chrono>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "ipybox/executor/mcp_runtime.hpp"
#include "ipybox/process/child_process.hpp"
#include "mcp_client_pool.hpp"

namespace ipybox::testing {

enum class hostile_transport { stdio, streamable_http, sse };

inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// Deadlines no test reaches: a failure under them was not caused by a deadline.
nlohmann::json far_deadlines();
// Deadlines a test reaches in about a second: request and call 1 s, totals 3 s.
nlohmann::json near_deadlines();
// For answers trickling at 2 bytes a second (a byte every 0.5 s): a 2 s timeout the bytes keep
// restarting, and the listing's 3 s total limit (max_list) that ends it; max_request is far.
nlohmann::json trickle_deadlines();
// The listing's message when its total limit (max_list) of `millis` ends it.
std::string listing_limit_message(int millis);

// One hostile server (an HTTP one runs from construction to destruction; a stdio one is started
// by the pool) registered as "hostile" in a pool of its own.
class hostile_connection {
  public:
    hostile_connection(hostile_transport transport, const std::string& mode,
                       const nlohmann::json& timeouts);
    ~hostile_connection();

    app::mcp_client_pool& pool() { return *pool_; }
    // Runs `work` against the pool on another thread; fails the test if it has not finished
    // within 60 s (a hang: the session is then closed, which ends `work`), else returns its
    // outcome as a future ready to get().
    template <class Work>
    auto bounded(Work work) {
        auto result = std::async(std::launch::async, std::move(work));
        if (result.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
            pool_->close_sessions();
            result.wait();
            FAIL("the request to the hostile server was still pending after 60 s");
        }
        return result;
    }
    // The message of the exception `work` throws, requiring one of type Exception.
    template <class Exception, class Work>
    std::string failure_of(Work work) {
        auto result = bounded(std::move(work));
        try {
            result.get();
        } catch (const Exception& e) {
            return e.what();
        } catch (const std::exception& e) {
            FAIL("failed with another error: " << e.what());
        }
        FAIL("the request succeeded");
        return {};
    }

  private:
    std::unique_ptr<process::child_process> http_server_;
    std::unique_ptr<app::mcp_runtime> runtime_;
    std::unique_ptr<app::mcp_client_pool> pool_;
};

}  // namespace ipybox::testing
