#include "pool_tool_invoker.hpp"

#include "ipybox/core/log.hpp"
#include "ipybox/core/redactor.hpp"
#include "ipybox/workspace/placeholders.hpp"
#include "tool_result_content.hpp"

namespace ipybox::app {
namespace {

using nlohmann::json;
namespace error_type = toolserver::error_type;

toolserver::tool_outcome outcome_of(const std::string& server, const std::string& tool,
                                    const std::exception_ptr& error,
                                    const mcp::session::call_tool_result& result,
                                    const std::filesystem::path& workspace,
                                    const std::filesystem::path& images) {
    try {
        if (error) std::rethrow_exception(error);
        // An isError result goes out as a result ("is_error": true) so that its content items
        // reach the kernel, whose tool client raises ToolError carrying them.
        return toolserver::tool_outcome::success(tool_result_json(result, workspace, images));
    } catch (const unknown_server& e) {
        return toolserver::tool_outcome::failure(error_type::unknown_server, e.what());
    } catch (const workspace::missing_variables_error& e) {
        return toolserver::tool_outcome::failure(
            error_type::server_error, "cannot start MCP server '" + server + "': " + e.what() +
                                          " (set them in the host's environment or the "
                                          "workspace .env)");
    } catch (const std::exception& e) {
        core::logger("app")->warn("{}.{} failed: {}", server, tool, e.what());
        return toolserver::tool_outcome::failure(error_type::server_error, e.what());
    }
}

}  // namespace

bool pool_tool_invoker::knows_server(const std::string& server_name) const {
    return pool_.has_server(server_name);
}

void pool_tool_invoker::invoke(const approval::tool_call& call, toolserver::outcome_handler done) {
    // What the handler needs, by value: it may run after this invoker is gone.
    pool_.async_call_tool(
        call.server_name, call.tool_name, call.arguments,
        [server = call.server_name, tool = call.tool_name, workspace = workspace_,
         images = images_directory_, done = std::move(done)](
            const std::exception_ptr& error, const mcp::session::call_tool_result& result) {
            // What the kernel receives, result or error, passes the redaction
            // rule: a value filled from a ${VAR} (in a URL's path, an echoed
            // environment, a stderr line) never reaches it.
            auto outcome = outcome_of(server, tool, error, result, workspace, images);
            const auto& filled = core::process_redactor();
            if (outcome.result) {
                outcome.result = filled.redact_json(*outcome.result);
            } else {
                outcome.error_message = filled.redact(outcome.error_message);
            }
            done(std::move(outcome));
        });
}

}  // namespace ipybox::app
