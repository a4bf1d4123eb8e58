#include "pool_tool_invoker.hpp"

#include "ipybox/core/log.hpp"
#include "ipybox/core/redactor.hpp"
#include "ipybox/workspace/placeholders.hpp"
#include "tool_result_content.hpp"

namespace ipybox::app {
namespace {

using nlohmann::json;
namespace error_type = toolserver::error_type;

}  // namespace

bool pool_tool_invoker::knows_server(const std::string& server_name) const {
    return pool_.has_server(server_name);
}

toolserver::tool_outcome pool_tool_invoker::invoke(const approval::tool_call& call) {
    // What the kernel receives, result or error, passes the redaction rule: a value filled from
    // a ${VAR} (in a URL's path, an echoed environment, a stderr line) never reaches it.
    auto outcome = call_pool(call);
    const auto& filled = core::process_redactor();
    if (outcome.result) {
        outcome.result = filled.redact_json(*outcome.result);
    } else {
        outcome.error_message = filled.redact(outcome.error_message);
    }
    return outcome;
}

toolserver::tool_outcome pool_tool_invoker::call_pool(const approval::tool_call& call) {
    try {
        const auto result = pool_.call_tool(call.server_name, call.tool_name, call.arguments);
        // An isError result goes out as a result ("is_error": true) so that its content items
        // reach the kernel, whose tool client raises ToolError carrying them.
        return toolserver::tool_outcome::success(
            tool_result_json(result, workspace_, images_directory_));
    } catch (const unknown_server& e) {
        return toolserver::tool_outcome::failure(error_type::unknown_server, e.what());
    } catch (const workspace::missing_variables_error& e) {
        return toolserver::tool_outcome::failure(error_type::server_error,
                                                 "cannot start MCP server '" + call.server_name +
                                                     "': " + e.what() +
                                                     " (set them in the host's "
                                                     "environment or the workspace .env)");
    } catch (const std::exception& e) {
        core::logger("app")->warn("{}.{} failed: {}", call.server_name, call.tool_name, e.what());
        return toolserver::tool_outcome::failure(error_type::server_error, e.what());
    }
}

}  // namespace ipybox::app
