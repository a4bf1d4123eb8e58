#pragma once
// The tool server's way to MCP tools: calls through the client pool, with results turned into
// the tool server's JSON (text, structured content, images saved as files).
#include <filesystem>

#include "ipybox/toolserver/tool_invoker.hpp"
#include "mcp_client_pool.hpp"

namespace ipybox::app {

// {"text", "structured", "images", "is_error"} from an MCP tool result. Image content is
// decoded and written to `images_directory` as <8 hex>.<png|jpg|gif|webp>, through a descriptor
// of `workspace` when the folder is inside it (no link the kernel planted is followed;
// workspace/directory.hpp); text of embedded resources is appended to the text. Throws
// std::system_error or workspace::unsafe_workspace_path if an image cannot be written.
nlohmann::json tool_result_json(const mcp::session::call_tool_result& result,
                                const std::filesystem::path& workspace,
                                const std::filesystem::path& images_directory);

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
