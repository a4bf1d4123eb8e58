#pragma once
// What a code_executor owns (private to app). The executor builds its parts on first use, in
// dependency order (code_executor_setup.cpp), and tears them down in reverse (stop()).
//
// Locking: `mutex` guards the parts and `session`. The order of executions and resets is the
// kernel session's queue (kernel_session.hpp): nothing here waits for a turn.
#include <memory>
#include <mutex>
#include <string>

#include "ipybox/code_executor.hpp"
#include "ipybox/core/private_directory.hpp"
#include "ipybox/core/work_pool.hpp"
#include "ipybox/kernel/kernel_session.hpp"
#include "ipybox/toolserver/tool_server.hpp"

namespace ipybox {
namespace app {
class approval_bridge;
class mcp_runtime;
class mcp_client_pool;
class pool_tool_invoker;
class tool_name_index;
class executor_gate;
class dependency_runner;
class user_library_writer;
}  // namespace app

struct code_executor::impl {
    // Validates and completes the options (absolute workspace, default images directory).
    // Throws std::invalid_argument for a bad server name or sandbox settings.
    explicit impl(code_executor_options given);
    ~impl();  // stop()

    // A name kernel code can import as mcptools.<name>, and not the one shell approvals use.
    // Throws std::invalid_argument.
    static void validate_registrable_name(const std::string& name);

    // The kernel session, created (not started) on first call: finds the interpreter and
    // starts the tool services first. Throws what start_failure() (execution_outcomes.hpp)
    // turns into a failed start: interpreter_not_found, sandbox_unavailable, kernel_start_error.
    kernel::kernel_session& session();
    void start_tool_services();  // mutex held
    void ensure_loop();  // mutex held: options.io_context, or a runtime of the executor's own
    // Queues `code` on the session (which exists) and starts driving it by callbacks
    // (async_execution.hpp). Does not wait.
    void begin_async(const std::string& code, std::optional<std::chrono::milliseconds> timeout,
                     std::function<void(code_execution_step)> on_step);
    void sandbox_kernel_launch(kernel::kernel_launch& launch);  // mutex held
    // Ends the kernels, then the tool services; a later session() builds them afresh.
    void stop();
    // Throws std::logic_error naming `call` on a thread that runs options.io_context: the call
    // waits for work that loop must do. (The session refuses its own waits on its loop too.)
    void refuse_on_loop(const char* call) const;

    code_executor_options options;
    std::filesystem::path python;
    // Declared in dependency order: destroyed from the kernel back to the runtime.
    std::unique_ptr<core::private_directory> private_dir;
    std::unique_ptr<core::private_directory> sandbox_dir;  // srt settings, out of kernels' reach
    std::unique_ptr<app::mcp_runtime> runtime;             // only when options.io_context is null
    boost::asio::io_context* loop = nullptr;               // options.io_context, or the runtime's
    std::unique_ptr<app::mcp_client_pool> pool;
    std::shared_ptr<app::approval_bridge> approvals;  // shared with the gate's late answers
    std::unique_ptr<app::tool_name_index> tool_names;
    std::unique_ptr<app::executor_gate> gate;
    std::unique_ptr<app::pool_tool_invoker> invoker;
    std::unique_ptr<app::user_library_writer> library_writer;  // under --sandbox only
    // options.add_dependencies, run on a thread of its own (dependency_runner.hpp).
    std::unique_ptr<core::work_pool> dependency_work;
    std::unique_ptr<app::dependency_runner> dependencies;
    std::unique_ptr<toolserver::tool_server> tool_server;
    std::string tool_token;
    std::shared_ptr<process::containment_host> containment;
    std::unique_ptr<kernel::kernel_session> kernel_session;
    // async_execute() before the session exists builds it here (the interpreter probe blocks),
    // never on the loop; while such a build is pending, later calls queue behind it, in order.
    std::unique_ptr<core::work_pool> setup_work;
    int pending_setups = 0;
    mutable std::mutex mutex;
};

}  // namespace ipybox
