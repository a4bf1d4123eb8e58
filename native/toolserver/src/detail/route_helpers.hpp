#pragma once
// Pieces the tool server's route handlers share: JSON responses, body parsing, the answer for a
// call the gate did not approve. Internal to the toolserver module.
#include <mutex>
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
// What a refusal names: `server.tool` for a tool call, "the shell command", "the shell cell",
// "the save of gentools.<category>.<name>" or "the dependencies of <action>" for the others;
// untrusted text escaped (a line break or an escape sequence in it must not reach a terminal
// through the error).
std::string subject_of(const approval::request& what);
// The answer for a request the gate did not approve; nullopt when it did.
std::optional<http_response> refusal(const std::string& subject,
                                     const approval::decision& decision);

// Passes on the first response only: a route that fails after it has handed its responder on
// cannot answer twice. Thread-safe.
class once_responder {
  public:
    explicit once_responder(responder done) : done_(std::move(done)) {}
    void send(http_response response);

  private:
    std::mutex mutex_;
    responder done_;  // empty once used
};

}  // namespace ipybox::toolserver::detail

namespace ipybox::toolserver {
// POST /gentools (gentools_route.cpp); the token and method are checked by the caller.
void handle_gentools(http_request request, const route_context& context, responder done);
// POST /dependencies (dependencies_route.cpp); likewise.
void handle_dependencies(http_request request, const route_context& context, responder done);
}  // namespace ipybox::toolserver
