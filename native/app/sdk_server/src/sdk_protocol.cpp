#include "sdk_protocol.hpp"

#include <cmath>
#include <limits>

#include "ipybox/mcp/jsonrpc/errors.hpp"

namespace ipybox::app::sdk {
namespace {

using mcp::jsonrpc::jsonrpc_error;
using nlohmann::json;
namespace error_code = mcp::jsonrpc::error_code;

[[noreturn]] void refuse(const std::string& text) {
    throw jsonrpc_error(error_code::invalid_params, text);
}

const json& field(const json& params, const char* name) {
    if (!params.is_object()) refuse("the parameters must be an object");
    const auto it = params.find(name);
    if (it == params.end()) refuse(std::string("missing parameter \"") + name + "\"");
    return *it;
}

std::int64_t integer_field(const json& params, const char* name) {
    const auto& value = field(params, name);
    if (!value.is_number_integer()) refuse(std::string("\"") + name + "\" must be an integer");
    return value.get<std::int64_t>();
}

std::string string_field(const json& params, const char* name) {
    const auto& value = field(params, name);
    if (!value.is_string()) refuse(std::string("\"") + name + "\" must be a string");
    return value.get<std::string>();
}

const char* kind_name(code_execution_failure::kind kind) {
    switch (kind) {
        case code_execution_failure::kind::exception:
            return "exception";
        case code_execution_failure::kind::timeout:
            return "timeout";
        case code_execution_failure::kind::kernel_died:
            return "kernel_died";
        case code_execution_failure::kind::start_failed:
            return "start_failed";
    }
    return "exception";
}

// The reference SDK's names for what is not a tool call: server "ipybox" and the name approval
// policies use (approval::policy_names), with the command as {"cmd"} for a shell command.
struct approval_fields {
    const char* kind;
    std::string server_name;
    std::string tool_name;
    json tool_args;
    std::string python_name;
    std::string interpreter;
};

approval_fields fields_of(const approval::request& what) {
    if (const auto* call = std::get_if<approval::tool_call>(&what)) {
        return {"tool_call",     call->server_name, call->tool_name,
                call->arguments, call->python_name, ""};
    }
    const std::string server = approval::reserved_server_name;
    if (const auto* shell = std::get_if<approval::shell_command>(&what)) {
        const bool cell = shell->kind == approval::shell_command::form::cell_magic;
        return {"shell_command",
                server,
                cell ? approval::shell_cell_magic_name : approval::shell_line_name,
                json{{"cmd", shell->command}},
                "",
                shell->interpreter};
    }
    if (const auto* save = std::get_if<approval::save_action>(&what)) {
        json args{{"category", save->category},
                  {"name", save->name},
                  {"files", save->files},
                  {"overwrite", save->overwrite}};
        if (save->category_init) args["category_init"] = *save->category_init;
        return {"save_action", server, approval::save_action_name, std::move(args), "", ""};
    }
    const auto& add = std::get<approval::add_dependencies>(what);
    json packages = json::array();
    for (const auto& package : add.packages) {
        packages.push_back({{"spec", package.spec}, {"for_user", package.for_user}});
    }
    return {"add_dependencies",
            server,
            approval::add_dependencies_name,
            json{{"action", add.action}, {"servers", add.servers}, {"packages", packages}},
            "",
            ""};
}

}  // namespace

execute_params parse_execute(const json& params) {
    execute_params parsed;
    parsed.execution = integer_field(params, "execution");
    parsed.code = string_field(params, "code");
    if (const auto it = params.find("timeout"); it != params.end() && !it->is_null()) {
        if (!it->is_number()) refuse("\"timeout\" must be a number of seconds or null");
        const double seconds = it->get<double>();
        // Up to a year: beyond it (or NaN) the milliseconds would not fit.
        if (!(seconds >= 0) || seconds > 365.0 * 24 * 3600) {
            refuse("\"timeout\" must be between 0 and a year of seconds");
        }
        parsed.timeout = std::chrono::milliseconds(std::llround(seconds * 1000));
    }
    return parsed;
}

decide_params parse_decide(const json& params) {
    decide_params parsed;
    parsed.approval = integer_field(params, "approval");
    const auto& accept = field(params, "accept");
    if (!accept.is_boolean()) refuse("\"accept\" must be true or false");
    parsed.accept = accept.get<bool>();
    if (const auto it = params.find("reason"); it != params.end() && !it->is_null()) {
        if (!it->is_string()) refuse("\"reason\" must be a string");
        parsed.reason = it->get<std::string>();
    }
    return parsed;
}

register_params parse_register(const json& params) {
    register_params parsed;
    parsed.server_name = string_field(params, "server_name");
    parsed.server_params = field(params, "server_params");
    if (!parsed.server_params.is_object()) refuse("\"server_params\" must be an object");
    return parsed;
}

json chunk_notification(std::int64_t execution, const code_execution_chunk& chunk) {
    return {{"execution", execution},
            {"stream", chunk.stream},
            {"text", chunk.text},
            {"image", chunk.image ? json(chunk.image->string()) : json(nullptr)}};
}

json approval_notification(std::int64_t execution, std::int64_t approval,
                           const approval::request& what, const std::string& question) {
    auto fields = fields_of(what);
    return {{"execution", execution},
            {"approval", approval},
            {"kind", fields.kind},
            {"server_name", std::move(fields.server_name)},
            {"tool_name", std::move(fields.tool_name)},
            {"tool_args", std::move(fields.tool_args)},
            {"python_name", std::move(fields.python_name)},
            {"interpreter", std::move(fields.interpreter)},
            {"needs_a_person", approval::needs_a_person(what)},
            {"question", question}};
}

json result_json(const code_execution_result& result) {
    json images = json::array();
    for (const auto& image : result.images) images.push_back(image.string());
    return {{"text", result.text},
            {"images", std::move(images)},
            {"cancelled", result.cancelled},
            {"notices", result.notices},
            {"omitted_output_bytes", result.omitted_output_bytes}};
}

mcp::jsonrpc::error_object failure_error(const code_execution_failure& failure) {
    return {execution_failed_code, failure.message,
            json{{"kind", kind_name(failure.error_kind)},
                 {"ename", failure.ename},
                 {"evalue", failure.evalue},
                 {"output", failure.output},
                 {"state_kept", failure.state_kept}}};
}

}  // namespace ipybox::app::sdk
