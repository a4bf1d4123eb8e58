#pragma once
// The messages of `ipybox sdk` (ipybox/sdk_server.hpp) as JSON, both ways, without I/O: what a
// request's parameters mean (refused with invalid_params when malformed) and how an execution's
// steps are written. Pure functions; thread-safe.
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ipybox/approval/request.hpp"
#include "ipybox/code_executor.hpp"
#include "ipybox/mcp/jsonrpc/message.hpp"

namespace ipybox::app::sdk {

inline constexpr int execution_failed_code = -32000;

struct execute_params {
    std::int64_t execution = 0;
    std::string code;
    std::optional<std::chrono::milliseconds> timeout;
};

struct decide_params {
    std::int64_t approval = 0;
    bool accept = false;
    std::string reason;
};

struct register_params {
    std::string server_name;
    nlohmann::json server_params;
};

// Throw jsonrpc_error(invalid_params) naming the field that is missing or of the wrong type.
execute_params parse_execute(const nlohmann::json& params);
decide_params parse_decide(const nlohmann::json& params);
register_params parse_register(const nlohmann::json& params);

nlohmann::json chunk_notification(std::int64_t execution, const code_execution_chunk& chunk);
// `question` is approval_request::question(), passed in so that this stays pure.
nlohmann::json approval_notification(std::int64_t execution, std::int64_t approval,
                                     const approval::request& what, const std::string& question);
nlohmann::json result_json(const code_execution_result& result);
mcp::jsonrpc::error_object failure_error(const code_execution_failure& failure);

}  // namespace ipybox::app::sdk
