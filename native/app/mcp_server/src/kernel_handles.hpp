#pragma once
// The kernels of `ipybox mcp`, each a kernel_unit, found for every call of the tools
// (server_front.cpp) by the principal that makes it and the call's optional kernel_id:
//
// * The implicit kernel: a call without kernel_id uses its principal's. Over stdio and over
//   HTTP without tokens there is one principal, "local", whose implicit kernel starts with the
//   server and works in the server's workspace; over stdio it stays until the server stops (as
//   before handles). With --auth-token-file each principal's is made at its first such call, also
//   in the server's workspace (like a second `ipybox mcp` on the same project). Over HTTP every
//   implicit kernel is stopped, as handles are, after the TTL idle; the next call starts a fresh
//   one.
// * Handles (HTTP only): create_kernel makes a kernel with its own executor, tool server and
//   registrations, in the server's workspace or a subfolder, sandboxed as the server allows,
//   with limits within the server's; it answers an id of 128 random bits that the calls pass as
//   kernel_id. list_kernels and destroy_kernel see only the caller's kernels.
//
// A kernel is found only by its owner: another principal's id is unknown, like one never made.
// Caps (handle_table.hpp): --max-kernels across the server, a principal's max_kernels and
// max_concurrent_cells from the token file. Kernels idle past --kernel-ttl are stopped by a
// timer on the server's loop; a stopped kernel leaves no process behind.
//
// Thread-safety: start() before any call, acquire() on the server's loop; release() and the cell
// counters anywhere; the tools' handlers (create, list, destroy) and stop() block and run off the
// loop.
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "handle_table.hpp"
#include "ipybox/approval/policy.hpp"
#include "ipybox/core/work_pool.hpp"
#include "ipybox/kernel/shared_kernel_template.hpp"
#include "ipybox/mcp/http_server/http_server.hpp"
#include "ipybox/mcp/session/types.hpp"
#include "ipybox/mcp_server.hpp"
#include "kernel_unit.hpp"

namespace ipybox::app {

using mcp::http_server::client_identity;

// A kernel_id that is not the caller's kernel; what() says what to do.
class unknown_kernel_error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct kernel_handles_settings {
    mcp_server_options options;                // the server's
    std::optional<std::filesystem::path> srt;  // found at the start, with options.sandbox
    approval::policy policy;
    handle_caps caps;
    bool implicit_kernels_expire = false;  // true over HTTP (see above)
    // Over HTTP: the unsandboxed kernels are forked from one template for the whole server
    // (kernel/shared_kernel_template.hpp), so that an idle kernel costs what it wrote since its
    // fork. Over stdio the one kernel keeps a template of its own with its spare, as before.
    bool share_template = false;
};

class kernel_handles {
  public:
    kernel_handles(boost::asio::io_context& io, kernel_handles_settings settings);
    ~kernel_handles();  // stop()

    kernel_handles(const kernel_handles&) = delete;
    kernel_handles& operator=(const kernel_handles&) = delete;

    // Makes `principal`'s implicit kernel now, starting in the background (for stdio and HTTP
    // without tokens). The TTL timer runs from construction.
    void start(const std::string& principal);

    // The kernel a call of `who` with `arguments` is for, held until release(): the one its
    // "kernel_id" names, else the caller's implicit one (made now when there is none; its set-up
    // and start run on its own line, so this never blocks). Throws unknown_kernel_error,
    // handle_limit_error, or std::invalid_argument for a kernel_id that is not a string.
    std::shared_ptr<kernel_unit> acquire(const nlohmann::json& arguments,
                                         const client_identity& who);
    void release(const std::shared_ptr<kernel_unit>& kernel);

    // A cell of `who` starts or ends (max_concurrent_cells); begin_cell throws handle_limit_error.
    void begin_cell(const client_identity& who);
    void end_cell(const client_identity& who);

    // The tools create_kernel, list_kernels and destroy_kernel (server_tool_table.hpp's
    // handle_tool_table()), with checked arguments. They block.
    mcp::session::call_tool_result create(const nlohmann::json& arguments,
                                          const client_identity& who);
    mcp::session::call_tool_result list(const client_identity& who) const;
    mcp::session::call_tool_result destroy(const nlohmann::json& arguments,
                                           const client_identity& who);

    const handle_caps& caps() const { return table_.caps(); }
    std::size_t kernels() const { return table_.size(); }

    // Stops the timer and retires every kernel (in parallel); returns when they are gone.
    void stop();

  private:
    std::shared_ptr<kernel_unit> make_unit(mcp_server_options options,
                                           std::optional<std::filesystem::path> srt);
    void schedule_reaping();
    void retire_later(const std::shared_ptr<kernel_unit>& kernel);

    boost::asio::io_context& io_;
    const kernel_handles_settings settings_;
    handle_table<kernel_unit> table_;
    boost::asio::steady_timer reaper_;
    bool stopped_ = false;  // on the loop
    core::work_pool retirements_{"retirements", 2};
    // With settings.share_template; ended by stop() once every kernel is gone.
    std::shared_ptr<kernel::shared_kernel_template> shared_template_;
};

}  // namespace ipybox::app
