#include "transport_factory.hpp"

#include <stdexcept>

#include "ipybox/mcp/http/transport_factory.hpp"
#include "ipybox/mcp/transport/stdio_client_transport.hpp"
#include "server_deadlines.hpp"

namespace ipybox::app {
namespace {

using nlohmann::json;

std::string string_field(const json& params, const char* key) {
    const auto& value = params.at(key);
    if (!value.is_string()) {
        throw std::invalid_argument(std::string("server parameter \"") + key +
                                    "\" must be a string");
    }
    return value.get<std::string>();
}

}  // namespace

void validate_server_params(const json& params) {
    if (!params.is_object()) {
        throw std::invalid_argument(
            "server parameters must be a JSON object: {\"command\", \"args\", \"env\"} for a "
            "stdio server or {\"url\", \"headers\"} for an HTTP server");
    }
    deadlines_for(params, {});  // throws for bad "timeouts"
    if (params.contains("command")) {
        if (string_field(params, "command").empty()) {
            throw std::invalid_argument("server parameter \"command\" is empty");
        }
        if (params.contains("args")) {
            const auto& args = params["args"];
            if (!args.is_array() || !std::all_of(args.begin(), args.end(),
                                                 [](const json& a) { return a.is_string(); })) {
                throw std::invalid_argument("server parameter \"args\" must be a list of strings");
            }
        }
        if (params.contains("env")) {
            const auto& env = params["env"];
            if (!env.is_object() ||
                !std::all_of(env.begin(), env.end(), [](const json& v) { return v.is_string(); })) {
                throw std::invalid_argument(
                    "server parameter \"env\" must be an object of string values");
            }
        }
        return;
    }
    if (params.contains("url")) {
        string_field(params, "url");
        return;
    }
    throw std::invalid_argument(
        "server parameters need \"command\" (a stdio server) or \"url\" (an HTTP server); got " +
        params.dump());
}

std::shared_ptr<mcp::transport::transport> make_transport(
    boost::asio::io_context& io, const std::string& server_name, const json& params,
    const std::filesystem::path& default_cwd,
    const std::optional<std::map<std::string, std::string>>& inherited,
    std::chrono::milliseconds close_grace) {
    validate_server_params(params);
    if (!params.contains("command")) return mcp::http::make_http_transport(io, params, server_name);
    mcp::transport::stdio_client_options options;
    options.command = params["command"].get<std::string>();
    if (params.contains("args")) options.args = params["args"].get<std::vector<std::string>>();
    if (params.contains("env")) {
        options.env = params["env"].get<std::map<std::string, std::string>>();
    }
    options.cwd =
        params.contains("cwd") ? std::filesystem::path(string_field(params, "cwd")) : default_cwd;
    options.name = server_name;
    options.inherited = inherited;
    options.stdin_close_grace = close_grace / 2;
    options.terminate_grace = close_grace - options.stdin_close_grace;
    return mcp::transport::make_stdio_client_transport(io, std::move(options));
}

}  // namespace ipybox::app
