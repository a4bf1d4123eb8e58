#pragma once
// Fakes at the tool server's seams: an invoker that records calls, a gate with a fixed answer.
#include <atomic>
#include <mutex>
#include <set>
#include <vector>

#include "ipybox/toolserver/library_writer.hpp"
#include "ipybox/toolserver/routes.hpp"
#include "ipybox/toolserver/tool_invoker.hpp"
#include "running_loop.hpp"  // the loop the tool server runs on, as the runtime provides it

namespace ipybox::testing {

class recording_invoker : public toolserver::tool_invoker {
  public:
    std::set<std::string> servers = {"everything"};
    std::vector<approval::tool_call> calls;
    std::mutex mutex;

    bool knows_server(const std::string& name) const override { return servers.count(name) != 0; }
    toolserver::tool_outcome invoke(const approval::tool_call& call) override {
        std::lock_guard lock(mutex);
        calls.push_back(call);
        if (call.tool_name == "explode") throw std::runtime_error("the MCP server died");
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

class fixed_gate : public approval::gate {
  public:
    explicit fixed_gate(approval::verdict v) : verdict_(v) {}
    std::atomic<int> asked{0};
    approval::tool_call last;  // the last call asked about
    approval::decision decide(const approval::tool_call& call) override {
        {
            std::lock_guard lock(mutex_);
            last = call;
        }
        ++asked;
        return {verdict_, {}};
    }

  private:
    approval::verdict verdict_;
    std::mutex mutex_;
};

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

}  // namespace ipybox::testing
