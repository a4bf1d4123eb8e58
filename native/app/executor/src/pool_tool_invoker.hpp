#pragma once
// The tool server's way to MCP tools: calls through the client pool, with results turned into
// the tool server's JSON (tool_result_content.hpp). Asynchronous: invoke() starts the call;
// the outcome is built on the loop's thread when the server answers (the files of images,
// audio and blobs are written there: at most the 16 MiB a single answer may hold).
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
    void invoke(const approval::tool_call& call, toolserver::outcome_handler done) override;

  private:
    mcp_client_pool& pool_;
    std::filesystem::path workspace_;
    std::filesystem::path images_directory_;
};

}  // namespace ipybox::app
