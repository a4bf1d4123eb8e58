#pragma once
// Fakes at the tool server's seams: an invoker that records calls, a gate with a fixed answer.
#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "ipybox/toolserver/dependency_adder.hpp"
#include "ipybox/toolserver/library_writer.hpp"
#include "ipybox/toolserver/routes.hpp"
#include "ipybox/toolserver/tool_invoker.hpp"
#include "running_loop.hpp"

namespace ipybox::testing {

class recording_invoker : public toolserver::tool_invoker {
  public:
    std::set<std::string> servers = {"everything"};
    std::vector<approval::tool_call> calls;
    std::mutex mutex;

    bool knows_server(const std::string& name) const override { return servers.count(name) != 0; }
    // Answers at once, before returning.
    void invoke(const approval::tool_call& call, toolserver::outcome_handler done) override {
        {
            std::lock_guard lock(mutex);
            calls.push_back(call);
        }
        if (call.tool_name == "explode") throw std::runtime_error("the MCP server died");
        done(outcome_of(call));
    }

    static toolserver::tool_outcome outcome_of(const approval::tool_call& call) {
        if (call.tool_name == "huge") {  // an answer far larger than a socket's buffers
            return toolserver::tool_outcome::success({{"text", std::string(8 << 20, 'x')}});
        }
        if (call.tool_name == "fail") {
            return toolserver::tool_outcome::failure(toolserver::error_type::tool_error,
                                                     "bad input");
        }
        return toolserver::tool_outcome::success({{"text", "ok:" + call.arguments.dump()},
                                                  {"structured", nullptr},
                                                  {"images", nlohmann::json::array()},
                                                  {"is_error", false}});
    }
};

// Decides at once, before returning, always the same way.
class fixed_gate : public approval::gate {
  public:
    explicit fixed_gate(approval::verdict v) : verdict_(v) {}
    std::atomic<int> asked{0};
    approval::request last;  // the last request asked about
    void decide(const approval::request& what, approval::decision_handler done) override {
        {
            std::lock_guard lock(mutex_);
            last = what;
        }
        ++asked;
        done({verdict_, {}});
    }
    const approval::tool_call& last_call() const { return std::get<approval::tool_call>(last); }

  private:
    approval::verdict verdict_;
    std::mutex mutex_;
};

// Keeps every request undecided until the test decides it, from any thread.
class deferred_gate : public approval::gate {
  public:
    void decide(const approval::request& what, approval::decision_handler done) override {
        std::lock_guard lock(mutex_);
        pending_.push_back({what, std::move(done)});
        arrived_.notify_all();
    }
    // Waits until `count` requests are pending (at most 30 s), and says whether they are.
    bool wait_for_pending(std::size_t count) {
        std::unique_lock lock(mutex_);
        return arrived_.wait_for(lock, std::chrono::seconds(30),
                                 [&] { return pending_.size() >= count; });
    }
    std::size_t pending() {
        std::lock_guard lock(mutex_);
        return pending_.size();
    }
    // Decides every pending request so, oldest first.
    void decide_all(approval::verdict v) {
        std::vector<std::pair<approval::request, approval::decision_handler>> taken;
        {
            std::lock_guard lock(mutex_);
            taken.swap(pending_);
        }
        for (auto& [what, done] : taken) done({v, {}});
    }

  private:
    std::mutex mutex_;
    std::condition_variable arrived_;
    std::vector<std::pair<approval::request, approval::decision_handler>> pending_;
};

// The answer of the routes to `request`, which the fakes above give before handle_request()
// returns (a test of a route that answers later uses the tool server instead).
inline toolserver::http_response respond_now(toolserver::http_request request,
                                             const toolserver::route_context& context) {
    std::optional<toolserver::http_response> answer;
    toolserver::handle_request(std::move(request), context,
                               [&answer](toolserver::http_response r) { answer = std::move(r); });
    if (!answer) throw std::logic_error("the routes did not answer at once");
    return std::move(*answer);
}

// The "error" object of a tool server response.
inline nlohmann::json error_of(const toolserver::http_response& response) {
    return nlohmann::json::parse(response.body)["error"];
}

// A library writer that records what it was asked to save and answers with a fixed outcome.
class recording_library : public toolserver::library_writer {
  public:
    std::vector<toolserver::gentool_save> saves;
    toolserver::gentool_save_outcome answer =
        toolserver::gentool_save_outcome::saved("/library/c/n");
    toolserver::gentool_save_outcome save(const toolserver::gentool_save& request) override {
        saves.push_back(request);
        return answer;
    }
};

// A dependency adder that records what it was asked to add and answers with a fixed outcome.
class recording_adder : public toolserver::dependency_adder {
  public:
    std::vector<approval::add_dependencies> added;
    toolserver::dependency_outcome answer{true, "registered MCP server everything\n"};
    std::string refused;  // refusal()'s answer
    void add(const approval::add_dependencies& what, toolserver::dependency_handler done) override {
        added.push_back(what);
        done(answer);
    }
    std::string refusal(const approval::add_dependencies&) const override { return refused; }
    // annotate() marks the request as the host's adder would: its project and every server.
    void annotate(approval::add_dependencies& what) const override {
        what.project = "/host/project";
        for (const auto& [name, params] : what.servers) what.outside_project[name] = {"/other"};
    }
};

}  // namespace ipybox::testing
