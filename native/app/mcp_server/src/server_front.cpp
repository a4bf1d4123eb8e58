#include "server_front.hpp"

#include "ipybox/core/version.hpp"
#include "ipybox/executor/offload.hpp"
#include "server_tool_table.hpp"

namespace ipybox::app {

namespace asio = boost::asio;
using mcp::session::call_tool_result;
using mcp::session::request_context;

mcp::session::server_options server_session_options() {
    mcp::session::server_options server;
    server.server_info = {"ipybox", core::version, "ipybox"};
    server.instructions = server_instructions();
    server.name = "ipybox";
    return server;
}

void add_server_tools(mcp::session::server_session& session, server_tools& tools,
                      const tool_lines& lines) {
    // The handlers are plain functions returning an awaitable (not coroutines), for the same
    // GCC 12 reason as offload().
    using handler_result = asio::awaitable<call_tool_result>;
    for (const auto& tool : server_tool_table()) {
        auto& line = tool.line == tool_line::servers ? lines.server_work : lines.kernel_calls;
        session.add_tool(descriptor_of(tool),
                         [&tools, &tool, &line](nlohmann::json arguments,
                                                const request_context& context) -> handler_result {
                             return offload<call_tool_result>(
                                 line, [&tools, &tool, arguments = std::move(arguments), context] {
                                     return tools.call(tool, arguments, context);
                                 });
                         });
    }
}

}  // namespace ipybox::app
