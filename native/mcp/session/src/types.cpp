#include "ipybox/mcp/session/types.hpp"

#include "ipybox/mcp/session/protocol_version.hpp"

namespace ipybox::mcp::session {
namespace {

std::optional<std::string> optional_string(const json& object, const char* key) {
    const auto found = object.find(key);
    if (found == object.end() || !found->is_string()) return std::nullopt;
    return found->get<std::string>();
}

}  // namespace

json implementation_info::to_json() const {
    json out = {{"name", name}, {"version", version}};
    if (title) out["title"] = *title;
    return out;
}

implementation_info implementation_info::from_json(const json& value) {
    implementation_info info;
    if (!value.is_object()) return info;
    info.name = optional_string(value, "name").value_or("");
    info.version = optional_string(value, "version").value_or("");
    info.title = optional_string(value, "title");
    return info;
}

json tool_descriptor::to_json() const {
    json out = {{"name", name}, {"inputSchema", input_schema}};
    if (title) out["title"] = *title;
    if (!description.empty()) out["description"] = description;
    if (!output_schema.is_null()) out["outputSchema"] = output_schema;
    if (!annotations.is_null()) out["annotations"] = annotations;
    return out;
}

tool_descriptor tool_descriptor::from_json(const json& value) {
    if (!value.is_object() || !value.contains("name") || !value["name"].is_string()) {
        throw protocol_error(
            "tools/list",
            "a tool entry has no string \"name\": " +
                value.dump(-1, ' ', false, json::error_handler_t::replace).substr(0, 200));
    }
    tool_descriptor tool;
    tool.name = value["name"].get<std::string>();
    tool.title = optional_string(value, "title");
    tool.description = optional_string(value, "description").value_or("");
    if (const auto schema = value.find("inputSchema");
        schema != value.end() && schema->is_object()) {
        tool.input_schema = *schema;
    }
    if (const auto schema = value.find("outputSchema");
        schema != value.end() && schema->is_object()) {
        tool.output_schema = *schema;
    }
    if (const auto notes = value.find("annotations"); notes != value.end() && notes->is_object()) {
        tool.annotations = *notes;
    }
    tool.raw = value;
    return tool;
}

json call_tool_result::to_json() const& {
    return call_tool_result(*this).to_json();
}

json call_tool_result::to_json() && {
    json out = json::object();
    if (needs_input()) {
        out["resultType"] = "input_required";
        if (!input_requests.is_null()) out["inputRequests"] = std::move(input_requests);
        if (request_state) out["requestState"] = std::move(*request_state);
        return out;
    }
    out["content"] = std::move(content);
    if (!structured.is_null()) out["structuredContent"] = std::move(structured);
    if (is_error) out["isError"] = true;
    return out;
}

call_tool_result call_tool_result::from_json(const json& value) {
    if (!value.is_object()) throw protocol_error("tools/call", "the result is not an object");
    call_tool_result result;
    if (const auto content = value.find("content"); content != value.end()) {
        if (!content->is_array()) {
            throw protocol_error("tools/call", "\"content\" of the result is not an array");
        }
        result.content = *content;
    }
    if (const auto structured = value.find("structuredContent"); structured != value.end()) {
        result.structured = *structured;
    }
    if (const auto flag = value.find("isError"); flag != value.end() && flag->is_boolean()) {
        result.is_error = flag->get<bool>();
    }
    return result;
}

call_tool_result call_tool_result::text(std::string text, bool is_error) {
    call_tool_result result;
    result.content = json::array({{{"type", "text"}, {"text", std::move(text)}}});
    result.is_error = is_error;
    return result;
}

protocol_error::protocol_error(const std::string& method, const std::string& what)
    : jsonrpc::request_failed(method, "'" + method + "': protocol violation by the peer: " + what) {
}

capability_not_declared::capability_not_declared(const std::string& method,
                                                 const std::string& capability)
    : jsonrpc::request_failed(method, "'" + method + "' needs the \"" + capability +
                                          "\" capability, which the peer did not declare in "
                                          "initialize; the request was not sent") {}

namespace {
std::string supported_list() {
    std::string out;
    for (const auto& version : supported_protocol_versions()) {
        if (!out.empty()) out += ", ";
        out += version;
    }
    return out;
}
}  // namespace

unsupported_protocol_version::unsupported_protocol_version(const std::string& offered)
    : jsonrpc::request_failed("initialize", "the server speaks MCP protocol version '" + offered +
                                                "', which ipybox does not support (supported: " +
                                                supported_list() + ")"),
      offered_(offered) {}

}  // namespace ipybox::mcp::session
