#pragma once
// One kernel of `ipybox mcp` with everything its tools need: the code executor (kernel, spare,
// tool server), the registry of the servers registered for its workspace, the server_tools that
// answer its calls, and the line its kernel calls run on, one at a time in arrival order.
//
// The server has one such unit per kernel: the implicit one of stdio and of an unauthenticated
// HTTP server, a principal's implicit one, and one per handle (kernel_handles.hpp).
//
// Life: the constructor does nothing slow, so that it may run on the server's loop: it posts the
// unit's set-up (the executor, the registrations it restores, its tools) and the kernel's start
// as the first work of kernel_calls(), and calls posted there after it wait for them. tools()
// waits for the set-up. Then retire() once: from then on no call may be posted; it cancels what
// runs, stops the kernel and every process of it, and returns when nothing of the unit runs any
// more. Thread-safety: tools(), wait_started() and retire() from any thread but the server's loop
// and kernel_calls() itself (they block); the rest from any thread.
#include <future>
#include <memory>
#include <mutex>
#include <optional>

#include "ipybox/approval/policy.hpp"
#include "ipybox/code_executor.hpp"
#include "ipybox/core/work_pool.hpp"
#include "ipybox/gentools/server_registry.hpp"
#include "ipybox/mcp_server.hpp"
#include "server_tools.hpp"

namespace ipybox::app {

class kernel_unit {
  public:
    // `options.workspace` is this kernel's workspace and `options.registry_file` where its
    // registrations are remembered; `srt` the sandbox runtime found at the server's start (with
    // options.sandbox); `io` the server's loop, running until every unit is retired;
    // `shared_template` (null: none) the kernel template this unit's kernels are forked from
    // when they can share it (kernel/shared_kernel_template.hpp).
    kernel_unit(boost::asio::io_context& io, mcp_server_options options,
                std::optional<std::filesystem::path> srt, approval::policy policy,
                std::shared_ptr<kernel::shared_kernel_template> shared_template = nullptr);
    ~kernel_unit();  // retire()

    kernel_unit(const kernel_unit&) = delete;
    kernel_unit& operator=(const kernel_unit&) = delete;

    // Waits for the set-up and the kernel's start; throws what made either fail (a
    // code_execution_error when the kernel cannot start).
    void wait_started();
    void retire();

    // Waits for the set-up; throws what made it fail.
    server_tools& tools();
    core::work_pool& kernel_calls() { return kernel_calls_; }
    const mcp_server_options& options() const { return options_; }

  private:
    // Kernel code's requests for a saved action's dependencies reach tools_ through this, which
    // refuses them before tools_ exists and after retire() began.
    struct dependency_target {
        std::mutex mutex;
        server_tools* tools = nullptr;
    };

    void set_up(boost::asio::io_context& io, std::optional<std::filesystem::path> srt,
                approval::policy policy);

    const mcp_server_options options_;
    const std::shared_ptr<kernel::shared_kernel_template> shared_template_;
    std::unique_ptr<server_registry> registry_;
    std::shared_ptr<dependency_target> target_ = std::make_shared<dependency_target>();
    std::unique_ptr<code_executor> executor_;
    std::unique_ptr<server_tools> tools_;
    core::work_pool kernel_calls_{"kernel-calls", 1};
    std::shared_future<void> set_up_;
    std::shared_future<void> started_;
    std::once_flag retired_;
};

// The executor's options for a kernel of `ipybox mcp` with `options` (its workspace's .env and
// site-packages, the spare, the server's approvals, limits and sandbox). Creates the workspace's
// .ipybox/site-packages. kernel_unit.cpp.
code_executor_options executor_options_for(const mcp_server_options& options);

}  // namespace ipybox::app
