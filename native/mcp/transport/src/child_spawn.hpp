#pragma once
// Spawning an MCP server child with Boost.Process v1 (private to the transport module).
#include <boost/process/async_pipe.hpp>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ipybox/mcp/transport/stdio_client_transport.hpp"

namespace ipybox::mcp::transport::detail {

struct spawned_child {
    int pid = -1;
    std::unique_ptr<boost::process::async_pipe> stdin_pipe;   // we write the sink
    std::unique_ptr<boost::process::async_pipe> stdout_pipe;  // we read the source
    std::unique_ptr<boost::process::async_pipe> stderr_pipe;  // we read the source
};

// Starts `executable` as the leader of a new process group with exactly `environment`. The child
// ends of the pipes are closed in the parent; our ends are close-on-exec. Throws transport_error.
spawned_child spawn_child(boost::asio::io_context& io, const std::filesystem::path& executable,
                          const std::vector<std::string>& args, const environment_map& environment,
                          const std::optional<std::filesystem::path>& cwd,
                          const std::string& label);

// Sends `signal` to the child's process group, or to the child alone if it has no group (yet).
void signal_child(int pid, int signal);

// "exited with status 3", "was killed by signal 9 (Killed)".
std::string describe_wait_status(int status);

}  // namespace ipybox::mcp::transport::detail
