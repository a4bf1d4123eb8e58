#include "pool_tool_invoker.hpp"

#include "ipybox/core/base64.hpp"
#include "ipybox/core/log.hpp"
#include "ipybox/core/random.hpp"
#include "ipybox/core/redactor.hpp"
#include "ipybox/workspace/directory.hpp"
#include "ipybox/workspace/placeholders.hpp"

namespace ipybox::app {
namespace {

using nlohmann::json;
namespace error_type = toolserver::error_type;

std::string extension_for(const std::string& mime) {
    if (mime == "image/jpeg") return ".jpg";
    if (mime == "image/gif") return ".gif";
    if (mime == "image/webp") return ".webp";
    return ".png";
}

}  // namespace

json tool_result_json(const mcp::session::call_tool_result& result,
                      const std::filesystem::path& workspace,
                      const std::filesystem::path& images_directory) {
    std::string text;
    json images = json::array();
    const auto append = [&](const std::string& piece) {
        if (!text.empty()) text += "\n";
        text += piece;
    };
    for (const auto& block : result.content) {
        const auto type = block.value("type", "");
        if (type == "text") {
            append(block.value("text", ""));
        } else if (type == "image") {
            const auto bytes = core::base64_decode(block.value("data", ""));
            if (!bytes) continue;
            const auto path = images_directory /
                              (core::random_hex(4) + extension_for(block.value("mimeType", "")));
            workspace::write_file_beneath(workspace, path, *bytes);
            images.push_back(path.string());
        } else if (type == "resource" && block.contains("resource")) {
            const auto& resource = block["resource"];
            if (resource.contains("text")) append(resource.value("text", ""));
        } else if (type == "resource_link") {
            append("[resource: " + block.value("uri", "") + "]");
        }
    }
    return {{"text", text},
            {"structured", result.structured.is_object() ? result.structured : json(nullptr)},
            {"images", images},
            {"is_error", result.is_error}};
}

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
        auto converted = tool_result_json(result, workspace_, images_directory_);
        if (result.is_error) {
            return toolserver::tool_outcome::failure(error_type::tool_error,
                                                     converted["text"].get<std::string>());
        }
        return toolserver::tool_outcome::success(std::move(converted));
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
