#include "ipybox/mcp/http/transport_factory.hpp"

#include <cmath>
#include <set>

#include "ipybox/core/log.hpp"
#include "ipybox/mcp/http/sse_transport.hpp"
#include "ipybox/mcp/http/streamable_http_transport.hpp"

namespace ipybox::mcp::http {
namespace {

constexpr double max_timeout_seconds = 7 * 24 * 3600.0;

std::chrono::milliseconds seconds_value(const nlohmann::json& params, const char* key) {
    const auto& value = params.at(key);
    if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() <= 0 ||
        value.get<double>() > max_timeout_seconds) {
        throw std::invalid_argument(std::string("server parameter \"") + key +
                                    "\" must be a positive number of seconds, got " + value.dump());
    }
    return std::chrono::milliseconds(
        static_cast<std::chrono::milliseconds::rep>(std::ceil(value.get<double>() * 1000)));
}

}  // namespace

http_transport_kind choose_http_transport(const std::string& type, const url& target) {
    if (!type.empty()) {
        if (type == "streamable_http" || type == "streamable-http" || type == "streamableHttp" ||
            type == "http") {
            return http_transport_kind::streamable_http;
        }
        if (type == "sse") return http_transport_kind::sse;
        throw std::invalid_argument("unknown MCP server type \"" + type + "\" for " +
                                    target.origin() + target.path +
                                    ": use \"streamable_http\" or \"sse\"");
    }
    const auto segments = target.path_segments();
    for (auto segment = segments.rbegin(); segment != segments.rend(); ++segment) {
        if (*segment == "mcp") return http_transport_kind::streamable_http;
        if (*segment == "sse") return http_transport_kind::sse;
    }
    throw std::invalid_argument(
        "cannot tell which MCP transport " + target.origin() + target.path +
        " speaks: its path has no /mcp or /sse segment. Specify \"type\": \"streamable_http\" "
        "or \"type\": \"sse\" in the server parameters");
}

http_server_config parse_http_server_params(const nlohmann::json& params) {
    if (!params.is_object()) throw std::invalid_argument("server parameters must be a JSON object");
    const auto url_value = params.find("url");
    if (url_value == params.end() || !url_value->is_string()) {
        throw std::invalid_argument(
            "server parameters of an HTTP MCP server need a \"url\" string");
    }
    http_server_config config;
    config.options.url = url_value->get<std::string>();
    const auto target = parse_url(config.options.url);

    std::string type;
    if (const auto value = params.find("type"); value != params.end() && !value->is_null()) {
        if (!value->is_string())
            throw std::invalid_argument("server parameter \"type\" must be a string");
        type = value->get<std::string>();
    }
    config.kind = choose_http_transport(type, target);

    if (const auto value = params.find("headers"); value != params.end() && !value->is_null()) {
        if (!value->is_object()) {
            throw std::invalid_argument(
                "server parameter \"headers\" must be an object of strings");
        }
        for (const auto& [name, header] : value->items()) {
            if (!header.is_string()) {
                throw std::invalid_argument("header \"" + name + "\" must be a string, got " +
                                            header.dump());
            }
            config.options.headers[name] = header.get<std::string>();
        }
        validate_custom_headers(config.options.headers);
    }
    if (params.contains("timeout"))
        config.options.connect_timeout = seconds_value(params, "timeout");
    if (params.contains("sse_read_timeout")) {
        config.options.read_timeout = seconds_value(params, "sse_read_timeout");
    }
    if (const auto value = params.find("terminate_on_close"); value != params.end()) {
        if (!value->is_boolean()) {
            throw std::invalid_argument(
                "server parameter \"terminate_on_close\" must be a boolean");
        }
        config.options.terminate_on_close = value->get<bool>();
    }
    static const std::set<std::string> known{
        "url", "type", "headers", "timeout", "sse_read_timeout", "terminate_on_close"};
    for (const auto& [key, value] : params.items()) {
        if (known.count(key) == 0) config.ignored_keys.push_back(key);
    }
    return config;
}

std::shared_ptr<transport::transport> make_http_transport(boost::asio::io_context& io,
                                                          const nlohmann::json& server_params,
                                                          const std::string& name) {
    auto config = parse_http_server_params(server_params);
    config.options.name = name;
    if (!config.ignored_keys.empty()) {
        std::string keys;
        for (const auto& key : config.ignored_keys) keys += (keys.empty() ? "" : ", ") + key;
        core::logger("mcp.http")
            ->debug("MCP server '{}': ignoring unknown server parameters: {}", name, keys);
    }
    if (config.kind == http_transport_kind::sse) {
        return sse_transport::create(io, std::move(config.options));
    }
    return streamable_http_transport::create(io, std::move(config.options));
}

}  // namespace ipybox::mcp::http
