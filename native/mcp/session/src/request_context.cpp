// What a tool's handler knows of the request it serves (server_session.hpp).
#include "ipybox/mcp/jsonrpc/errors.hpp"
#include "ipybox/mcp/session/server_session.hpp"

namespace ipybox::mcp::session {

request_context::request_context(jsonrpc::request_id id, jsonrpc::cancellation_token cancellation,
                                 jsonrpc::responder responder, std::optional<request_meta> modern,
                                 std::weak_ptr<server_session> session)
    : id_(std::move(id)),
      cancellation_(std::move(cancellation)),
      responder_(std::move(responder)),
      modern_(std::move(modern)),
      session_(std::move(session)) {}

void request_context::read_retry(const json& params) {
    if (!modern_ || !params.is_object()) return;
    const auto refuse = [](const char* what) {
        throw jsonrpc::jsonrpc_error(jsonrpc::error_code::invalid_params, what);
    };
    if (const auto it = params.find("inputResponses"); it != params.end() && !it->is_null()) {
        if (!it->is_object()) refuse("tools/call: \"inputResponses\" must be an object");
        input_responses_ = *it;
    }
    if (const auto it = params.find("requestState"); it != params.end() && !it->is_null()) {
        if (!it->is_string()) refuse("tools/call: \"requestState\" must be a string");
        request_state_ = it->get<std::string>();
    }
}

void request_context::report_progress(double progress, std::optional<double> total,
                                      std::string message) const {
    responder_.report_progress({progress, total, std::move(message)});
}

bool request_context::wants_progress() const {
    return responder_.wants_progress();
}

}  // namespace ipybox::mcp::session
