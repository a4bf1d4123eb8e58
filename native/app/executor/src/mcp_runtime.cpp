#include "ipybox/executor/mcp_runtime.hpp"

#include "ipybox/core/log.hpp"

namespace ipybox::app {

mcp_runtime::mcp_runtime() : work_(boost::asio::make_work_guard(io_)) {
    thread_ = std::thread([this] {
        while (true) {
            try {
                io_.run();
                return;
            } catch (const std::exception& e) {
                // A handler that throws must not take the whole MCP runtime down with it.
                core::logger("app")->error("MCP runtime handler failed: {}", e.what());
            }
        }
    });
}

mcp_runtime::~mcp_runtime() {
    work_.reset();
    io_.stop();
    if (thread_.joinable()) thread_.join();
}

}  // namespace ipybox::app
