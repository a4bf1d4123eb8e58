#pragma once
// Pieces the tool server's route handlers share: JSON responses, body parsing, the answer for a
// call the gate did not approve. Internal to the toolserver module.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>

#include "ipybox/approval/gate.hpp"
#include "ipybox/toolserver/routes.hpp"

namespace ipybox::toolserver::detail {

http_response error_response(int status, const char* type, const std::string& message);
http_response json_response(const nlohmann::json& document);
// The body as a JSON object, decoded within `limits`, or the 400 response saying why it is not
// one (not JSON, too deep, too many values, invalid UTF-8).
std::variant<nlohmann::json, http_response> parse_object(const std::string& body,
                                                         const core::json_limits& limits);
// The answer for a call the gate did not approve; nullopt when it did.
std::optional<http_response> refusal(const approval::tool_call& call,
                                     const approval::decision& decision);

}  // namespace ipybox::toolserver::detail

namespace ipybox::toolserver {
// POST /gentools (gentools_route.cpp); the token and method are checked by the caller.
http_response handle_gentools(const http_request& request, const route_context& context);
}  // namespace ipybox::toolserver
