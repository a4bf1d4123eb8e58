#include "ipybox/mcp/jsonrpc/message.hpp"

#include <limits>

namespace ipybox::mcp::jsonrpc {

json to_json(const request_id& id) {
    return std::visit([](const auto& value) { return json(value); }, id);
}

std::optional<request_id> request_id_from_json(const json& value) {
    if (value.is_string()) return request_id(value.get<std::string>());
    if (value.is_number_unsigned()) {
        const auto raw = value.get<std::uint64_t>();
        if (raw > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
            return std::nullopt;
        }
        return request_id(static_cast<std::int64_t>(raw));
    }
    if (value.is_number_integer()) return request_id(value.get<std::int64_t>());
    return std::nullopt;
}

std::string to_string(const request_id& id) {
    return to_json(id).dump();
}

std::string_view method_of(const message& msg) {
    if (const auto* req = std::get_if<request>(&msg)) return req->method;
    if (const auto* note = std::get_if<notification>(&msg)) return note->method;
    return {};
}

}  // namespace ipybox::mcp::jsonrpc
