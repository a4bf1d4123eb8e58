#pragma once
// The names approval rules may use for a tool: its MCP name and the Python module name codegen
// gives it (assign_module_names over the server's whole tool list, so collisions resolve the way
// the generated mcptools/ package does). Lists are cached per server.
//
// Thread-safety: every method may be called from any thread. tools_of() blocks (tools/list);
// async_python_name() does not. Handlers may run after the index is gone (the cache is shared).
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ipybox/approval/request.hpp"
#include "mcp_client_pool.hpp"

namespace ipybox::app {

class tool_name_index {
  public:
    explicit tool_name_index(mcp_client_pool& pool)
        : pool_(pool), cache_(std::make_shared<cache>()) {}

    // Gives `done` the Python name of `tool`: at once when the cached list has it, else after
    // listing the server's tools again (a tool added since), on the loop's thread. A tool the
    // server does not list (or a server that cannot be listed) gets codegen's sanitised name,
    // so that a rule written in Python form still applies: an unlisted name must not slip past a
    // deny rule.
    void async_python_name(const std::string& server, const std::string& tool,
                           std::function<void(std::string)> done);
    // Every tool of `server` as a call without arguments, python_name set. Blocking; throws what
    // mcp_client_pool::list_tools throws.
    std::vector<approval::tool_call> tools_of(const std::string& server);
    // Drops the cached list (the server was registered again).
    void forget(const std::string& server);

  private:
    struct cache {
        std::mutex mutex;
        std::map<std::string, std::vector<approval::tool_call>> lists;
        // Stores `tools` of `server` with their Python names and returns them.
        std::vector<approval::tool_call> store(const std::string& server,
                                               const std::vector<std::string>& mcp_names);
    };

    mcp_client_pool& pool_;
    std::shared_ptr<cache> cache_;
};

}  // namespace ipybox::app
