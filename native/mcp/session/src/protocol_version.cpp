#include "ipybox/mcp/session/protocol_version.hpp"

#include <algorithm>

namespace ipybox::mcp::session {

const std::vector<std::string>& supported_protocol_versions() {
    static const std::vector<std::string> versions = {std::string(latest_protocol_version),
                                                      "2025-06-18", "2025-03-26", "2024-11-05"};
    return versions;
}

bool is_supported_protocol_version(std::string_view version) {
    const auto& versions = supported_protocol_versions();
    return std::find(versions.begin(), versions.end(), version) != versions.end();
}

std::string negotiate_protocol_version(std::string_view requested) {
    return is_supported_protocol_version(requested) ? std::string(requested)
                                                    : std::string(latest_protocol_version);
}

}  // namespace ipybox::mcp::session
