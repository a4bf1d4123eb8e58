#include "server_front.hpp"

#include "ipybox/core/version.hpp"
#include "ipybox/executor/offload.hpp"
#include "server_tool_support.hpp"
#include "server_tool_table.hpp"

namespace ipybox::app {

namespace asio = boost::asio;
using mcp::session::call_tool_result;
using mcp::session::request_context;
using nlohmann::json;

namespace {

// The handlers are plain functions returning an awaitable (not coroutines), for the same GCC 12
// reason as offload(). A synchronous throw becomes a result with isError (server_session).
using handler_result = asio::awaitable<call_tool_result>;

// Gives the kernel back (and the principal's cell) when the call ends, however it ends.
struct kernel_hold {
    kernel_hold(kernel_handles& k, std::shared_ptr<kernel_unit> held,
                std::optional<client_identity> cell)
        : kernels(k), kernel(std::move(held)), cell_of(std::move(cell)) {}
    kernel_handles& kernels;
    std::shared_ptr<kernel_unit> kernel;
    std::optional<client_identity> cell_of;
    ~kernel_hold() {
        kernels.release(kernel);
        if (cell_of) kernels.end_cell(*cell_of);
    }
    kernel_hold(const kernel_hold&) = delete;  // one release per hold
    kernel_hold& operator=(const kernel_hold&) = delete;
};

handler_result call_kernel_tool(kernel_handles& kernels, core::work_pool& server_work,
                                const server_tool& tool, const client_identity& who, json arguments,
                                const request_context& context) {
    const bool cell = tool.name == "execute_ipython_cell";
    if (cell) kernels.begin_cell(who);
    std::shared_ptr<kernel_unit> kernel;
    try {
        kernel = kernels.acquire(arguments, who);
    } catch (...) {
        if (cell) kernels.end_cell(who);
        throw;
    }
    const auto hold =
        std::make_shared<kernel_hold>(kernels, kernel, cell ? std::optional(who) : std::nullopt);
    auto& line = tool.line == tool_line::servers ? server_work : kernel->kernel_calls();
    return offload<call_tool_result>(
        line, [hold, &tool, arguments = std::move(arguments), context] {
            return detail::guarded(tool.name.c_str(), [&] {
                return hold->kernel->tools().call(tool, arguments, context);
            });
        });
}

handler_result call_handle_tool(kernel_handles& kernels, core::work_pool& server_work,
                                const server_tool& tool, const client_identity& who,
                                json arguments) {
    return offload<call_tool_result>(
        server_work, [&kernels, &tool, who, arguments = std::move(arguments)] {
            return detail::guarded(tool.name.c_str(), [&] {
                const auto checked = checked_arguments(tool, arguments);
                switch (tool.action) {
                    case handle_action::create:
                        return kernels.create(checked, who);
                    case handle_action::list:
                        return kernels.list(who);
                    case handle_action::destroy:
                        return kernels.destroy(checked, who);
                    case handle_action::none:
                        break;
                }
                throw std::logic_error("not a tool of kernels as handles");
            });
        });
}

}  // namespace

mcp::session::server_options server_session_options() {
    mcp::session::server_options server;
    server.server_info = {"ipybox", core::version, "ipybox"};
    server.instructions = server_instructions();
    server.name = "ipybox";
    return server;
}

void add_server_tools(mcp::session::server_session& session, kernel_handles& kernels,
                      core::work_pool& server_work, const client_identity& who, bool with_handles) {
    for (const auto& tool : server_tool_table()) {
        auto descriptor = descriptor_of(tool);
        if (with_handles) {
            server_tool with_id;
            with_id.parameters = {kernel_id_parameter()};
            descriptor.input_schema["properties"]["kernel_id"] =
                descriptor_of(with_id).input_schema["properties"]["kernel_id"];
        }
        session.add_tool(std::move(descriptor),
                         [&kernels, &server_work, &tool, who](
                             json arguments, const request_context& context) -> handler_result {
                             return call_kernel_tool(kernels, server_work, tool, who,
                                                     std::move(arguments), context);
                         });
    }
    if (!with_handles) return;
    const auto ttl = std::chrono::duration_cast<std::chrono::seconds>(kernels.caps().ttl).count();
    for (const auto& tool : handle_tool_table()) {
        auto descriptor = descriptor_of(tool);
        if (tool.action == handle_action::create) {
            descriptor.description += " Here the idle TTL is " + std::to_string(ttl) +
                                      " s, and the server runs at most " +
                                      std::to_string(kernels.caps().max_kernels) + " kernels.";
        }
        session.add_tool(std::move(descriptor),
                         [&kernels, &server_work, &tool, who](
                             json arguments, const request_context&) -> handler_result {
                             return call_handle_tool(kernels, server_work, tool, who,
                                                     std::move(arguments));
                         });
    }
}

}  // namespace ipybox::app
