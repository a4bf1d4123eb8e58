#pragma once
// The names approval rules may use for a tool: its MCP name and the Python module name codegen
// gives it (assign_module_names over the server's whole tool list, so collisions resolve the way
// the generated mcptools/ package does). Lists are cached per server.
//
// Thread-safety: every method may be called from any thread. Blocking (tools/list).
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "ipybox/approval/gate.hpp"
#include "mcp_client_pool.hpp"

namespace ipybox::app {

class tool_name_index {
  public:
    explicit tool_name_index(mcp_client_pool& pool) : pool_(pool) {}

    // The Python name of `tool`. A tool the server does not list (or a server that cannot be
    // listed) gets codegen's sanitised name, so that a rule written in Python form still
    // applies: an unlisted name must not slip past a deny rule.
    std::string python_name(const std::string& server, const std::string& tool);
    // Every tool of `server` as a call without arguments, python_name set. Throws what
    // mcp_client_pool::list_tools throws.
    std::vector<approval::tool_call> tools_of(const std::string& server);
    // Drops the cached list (the server was registered again).
    void forget(const std::string& server);

  private:
    std::vector<approval::tool_call> list(const std::string& server);

    mcp_client_pool& pool_;
    std::mutex mutex_;
    std::map<std::string, std::vector<approval::tool_call>> cache_;
};

// A gate that fills in python_name before handing the call on.
class python_naming_gate : public approval::gate {
  public:
    python_naming_gate(approval::gate& inner, tool_name_index& names)
        : inner_(inner), names_(names) {}
    approval::decision decide(const approval::tool_call& call) override;

  private:
    approval::gate& inner_;
    tool_name_index& names_;
};

}  // namespace ipybox::app
