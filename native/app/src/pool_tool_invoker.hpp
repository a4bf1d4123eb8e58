#pragma once
// The tool server's way to MCP tools: calls through the client pool, with results turned into
// the tool server's JSON (tool_result_content.hpp).
#include <filesystem>

#include "ipybox/toolserver/tool_invoker.hpp"
#include "mcp_client_pool.hpp"

namespace ipybox::app {

class pool_tool_invoker : public toolserver::tool_invoker {
  public:
    pool_tool_invoker(mcp_client_pool& pool, std::filesystem::path workspace,
                      std::filesystem::path images_directory)
        : pool_(pool),
          workspace_(std::move(workspace)),
          images_directory_(std::move(images_directory)) {}

    bool knows_server(const std::string& server_name) const override;
    // Results and errors come back redacted (core/redactor.hpp).
    toolserver::tool_outcome invoke(const approval::tool_call& call) override;

  private:
    toolserver::tool_outcome call_pool(const approval::tool_call& call);

    mcp_client_pool& pool_;
    std::filesystem::path workspace_;
    std::filesystem::path images_directory_;
};

}  // namespace ipybox::app
