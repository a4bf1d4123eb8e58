#include "ipybox/mcp/jsonrpc/errors.hpp"

#include "ipybox/core/log.hpp"
#include "ipybox/mcp/jsonrpc/completion.hpp"

namespace ipybox::mcp::jsonrpc {

jsonrpc_error::jsonrpc_error(int code, const std::string& text, json data)
    : std::runtime_error(text), code_(code), data_(std::move(data)) {}

error_object jsonrpc_error::to_error_object() const {
    return {code_, what(), data_};
}

request_failed::request_failed(std::string method, const std::string& what)
    : std::runtime_error(what), method_(std::move(method)) {}

remote_error::remote_error(const std::string& method, error_object error)
    : request_failed(method, "'" + method + "' failed on the peer: " + error.message +
                                 " (JSON-RPC " + std::to_string(error.code) + ")"),
      error_(std::move(error)) {}

request_timeout::request_timeout(const std::string& method, std::chrono::milliseconds after)
    : request_failed(method, "'" + method + "' got no answer within " +
                                 std::to_string(after.count()) +
                                 " ms; the request was cancelled (raise the timeout if the "
                                 "operation is expected to take longer)"),
      after_(after) {}

request_timeout::request_timeout(const std::string& method, std::chrono::milliseconds after,
                                 const std::string& what)
    : request_failed(method, what), after_(after) {}

unreadable_answer::unreadable_answer(const std::string& method, std::string reason,
                                     const std::string& what)
    : request_failed(method, what), reason_(std::move(reason)) {}

request_cancelled::request_cancelled(const std::string& method, const std::string& reason)
    : request_failed(method, "'" + method + "' was cancelled: " + reason) {}

connection_closed::connection_closed(const std::string& method, std::string reason)
    : request_failed(method, "'" + method + "' failed: the connection is closed (" + reason + ")"),
      reason_(std::move(reason)) {}

namespace detail {

void report_handler_exception(std::exception_ptr error) noexcept {
    try {
        std::rethrow_exception(std::move(error));
    } catch (const std::exception& failure) {
        core::logger("mcp")->error("a completion handler threw: {}", failure.what());
    } catch (...) {
        core::logger("mcp")->error("a completion handler threw an unknown exception");
    }
}

}  // namespace detail
}  // namespace ipybox::mcp::jsonrpc
