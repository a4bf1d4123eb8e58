#pragma once
// The application's one Asio runtime for MCP clients: an io_context run by one thread until the
// runtime is destroyed. Owned by the code executor and the MCP server.
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <thread>

namespace ipybox::app {

class mcp_runtime {
  public:
    mcp_runtime();
    ~mcp_runtime();  // stops the loop and joins the thread

    mcp_runtime(const mcp_runtime&) = delete;
    mcp_runtime& operator=(const mcp_runtime&) = delete;

    boost::asio::io_context& io() { return io_; }

  private:
    boost::asio::io_context io_;
    boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
    std::thread thread_;
};

}  // namespace ipybox::app
