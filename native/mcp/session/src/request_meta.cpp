#include "ipybox/mcp/session/request_meta.hpp"

#include <algorithm>
#include <array>

#include "ipybox/mcp/jsonrpc/errors.hpp"
#include "ipybox/mcp/session/protocol_version.hpp"

namespace ipybox::mcp::session {
namespace {

constexpr std::array<std::string_view, 8> log_levels = {"debug", "info",     "notice", "warning",
                                                        "error", "critical", "alert",  "emergency"};

const json* meta_of(const json& params) {
    if (!params.is_object()) return nullptr;
    const auto meta = params.find("_meta");
    return meta != params.end() && meta->is_object() ? &*meta : nullptr;
}

jsonrpc::jsonrpc_error malformed(std::string_view key, const std::string& what) {
    return jsonrpc::jsonrpc_error(jsonrpc::error_code::invalid_params,
                                  "Invalid params: _meta[\"" + std::string(key) + "\"] " + what);
}

}  // namespace

std::vector<std::string> served_protocol_versions(served_eras eras) {
    std::vector<std::string> versions;
    if (eras == served_eras::legacy_and_modern) versions.emplace_back(modern_protocol_version);
    const auto& legacy = supported_protocol_versions();
    versions.insert(versions.end(), legacy.begin(), legacy.end());
    return versions;
}

bool is_modern_protocol_version(std::string_view version) {
    return version == modern_protocol_version;
}

bool request_meta::supports(const std::string& capability) const {
    return client_capabilities.is_object() && client_capabilities.contains(capability) &&
           !client_capabilities[capability].is_null();
}

bool claims_modern_era(const json& params) {
    const auto* meta = meta_of(params);
    return meta != nullptr && meta->contains(meta_key::protocol_version);
}

jsonrpc::jsonrpc_error unsupported_version_error(const std::string& requested, served_eras eras) {
    return jsonrpc::jsonrpc_error(
        modern_error_code::unsupported_protocol_version, "Unsupported protocol version",
        json{{"supported", served_protocol_versions(eras)}, {"requested", requested}});
}

std::optional<request_meta> read_request_meta(const json& params) {
    if (!claims_modern_era(params)) return std::nullopt;
    const json& meta = *meta_of(params);
    const json& version = meta.at(meta_key::protocol_version);
    if (!version.is_string()) throw malformed(meta_key::protocol_version, "must be a string");
    request_meta read;
    read.protocol_version = version.get<std::string>();
    // A legacy revision named per request cannot be served without its handshake either.
    if (!is_modern_protocol_version(read.protocol_version)) {
        throw unsupported_version_error(read.protocol_version);
    }
    const auto capabilities = meta.find(meta_key::client_capabilities);
    if (capabilities == meta.end()) throw malformed(meta_key::client_capabilities, "is required");
    if (!capabilities->is_object()) {
        throw malformed(meta_key::client_capabilities, "must be an object");
    }
    read.client_capabilities = *capabilities;
    if (const auto info = meta.find(meta_key::client_info); info != meta.end()) {
        if (!info->is_object()) throw malformed(meta_key::client_info, "must be an object");
        read.client_info = implementation_info::from_json(*info);
    }
    if (const auto level = meta.find(meta_key::log_level); level != meta.end()) {
        const auto text = level->is_string() ? level->get<std::string>() : std::string();
        if (std::find(log_levels.begin(), log_levels.end(), text) == log_levels.end()) {
            throw malformed(meta_key::log_level, "must be a syslog level such as \"info\"");
        }
        read.log_level = text;
    }
    return read;
}

json complete_result(json result, const implementation_info& server) {
    if (!result.is_object()) result = json::object();
    if (result.value("resultType", "") != "input_required") result["resultType"] = "complete";
    auto& meta = result["_meta"];
    if (!meta.is_object()) meta = json::object();
    meta[std::string(meta_key::server_info)] = server.to_json();
    return result;
}

}  // namespace ipybox::mcp::session
