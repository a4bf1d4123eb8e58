#pragma once
// Argument checks and error mapping shared by the handlers of `ipybox mcp`'s tools
// (server_tools.cpp, server_tool_checks.cpp).
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "ipybox/code_executor.hpp"
#include "ipybox/core/log.hpp"
#include "ipybox/core/redactor.hpp"
#include "ipybox/mcp/session/types.hpp"

namespace ipybox::app::detail {

using mcp::session::call_tool_result;
using nlohmann::json;

// A mistake in the arguments: reported to the model as a tool error it can correct.
class argument_error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// The text blocks of `result` with the redaction rule applied (core/redactor.hpp): what
// ipybox's tools answer never quotes a value filled from a ${VAR}. Images are left as they are.
inline call_tool_result redacted(call_tool_result result) {
    for (auto& block : result.content) {
        if (block.is_object() && block.value("type", "") == "text" && block.contains("text") &&
            block["text"].is_string()) {
            block["text"] = core::redact_secrets(block["text"].get_ref<const std::string&>());
        }
    }
    return result;
}

template <typename Body>
call_tool_result guarded_unredacted(const char* tool, Body&& body) {
    try {
        return body();
    } catch (const argument_error& e) {
        return call_tool_result::text(
            std::string("Invalid arguments for ") + tool + ": " + e.what(), true);
    } catch (const std::invalid_argument& e) {
        return call_tool_result::text(e.what(), true);
    } catch (const code_execution_error& e) {
        return call_tool_result::text(e.what(), true);
    } catch (const std::exception& e) {
        core::logger("server")->warn("{} failed: {}", tool, e.what());
        return call_tool_result::text(std::string(tool) + " failed: " + e.what(), true);
    }
}

// Runs a tool's body: failures become results with isError, and every result is redacted.
template <typename Body>
call_tool_result guarded(const char* tool, Body&& body) {
    return redacted(guarded_unredacted(tool, std::forward<Body>(body)));
}

}  // namespace ipybox::app::detail
