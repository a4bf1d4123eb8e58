// The C++ API's operations: executions and their streams, reset and cancel, MCP servers. The
// parts they use are built on first use (code_executor_setup.cpp).
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <future>

#include "approval_bridge.hpp"
#include "async_execution.hpp"
#include "code_execution_stream_state.hpp"
#include "code_executor_impl.hpp"
#include "dependency_runner.hpp"
#include "execution_outcomes.hpp"
#include "executor_gate.hpp"
#include "ipybox/core/log.hpp"
#include "ipybox/executor/mcp_runtime.hpp"
#include "ipybox/gentools/user_library_writer.hpp"
#include "mcp_client_pool.hpp"
#include "pool_tool_invoker.hpp"
#include "source_generation.hpp"
#include "tool_name_index.hpp"

namespace ipybox {

namespace {
code_executor_options checked(code_executor_options options) {
    if (options.require_shell_escape && !options.approve_shell_commands) {
        throw std::invalid_argument(
            "require_shell_escape needs approve_shell_commands: without approval, shell "
            "commands would be the one way left to start a process, unreviewed");
    }
    return options;
}
}  // namespace

code_executor::code_executor(code_executor_options options)
    : impl_(std::make_unique<impl>(checked(std::move(options)))) {}

code_executor::~code_executor() = default;

void code_executor::impl::refuse_on_loop(const char* call) const {
    if (!options.io_context || !options.io_context->get_executor().running_in_this_thread()) {
        return;
    }
    throw std::logic_error(std::string(call) +
                           " was called on a thread that runs the executor's io_context. It "
                           "waits for work that this loop must do, so it would never return; "
                           "call it from another thread.");
}

void code_executor::start() {
    impl_->refuse_on_loop("code_executor::start()");
    try {
        impl_->session().start();
    } catch (...) {
        // The blocking API's edge: a failed start is reported as the public error.
        throw code_execution_error(app::start_failure(std::current_exception()));
    }
}

void code_executor::stop() {
    impl_->refuse_on_loop("code_executor::stop()");
    impl_->stop();
}

void code_executor::impl::stop() {
    // Dependencies being added use the executor (a registration): they finish first. So do
    // sessions being built for async_execute(), whose executions the session's stop then ends.
    if (dependency_work) dependency_work->join();
    std::unique_ptr<core::work_pool> setups;
    {
        std::lock_guard lock(mutex);
        setups = std::move(setup_work);
    }
    if (setups) setups->join();
    std::unique_ptr<kernel::kernel_session> session;
    {
        std::lock_guard lock(mutex);
        session = std::move(kernel_session);
    }
    if (session) {
        session->stop();
        // A stream consumed on another thread still uses the approval bridge until it sees the
        // end of its execution, which stopping the session has just caused; wait for it to let
        // go.
        if (!session->wait_streams_released(std::chrono::seconds(10))) {
            core::logger("app")->warn("a code execution stream is still in use while stopping");
        }
    }
    std::lock_guard lock(mutex);
    if (approvals) approvals->detach();
    // Closing the sessions fails calls still in flight, which lets the tool server's handlers
    // return; only then can the tool server stop.
    if (pool) pool->close_sessions();
    if (tool_server) tool_server->stop();
    tool_server.reset();
    invoker.reset();
    library_writer.reset();
    dependencies.reset();
    dependency_work.reset();
    gate.reset();
    tool_names.reset();
    approvals.reset();
    pool.reset();
    runtime.reset();
    loop = nullptr;
    private_dir.reset();
    sandbox_dir.reset();
}

code_execution_stream code_executor::stream(const std::string& code,
                                            std::optional<std::chrono::milliseconds> timeout) {
    impl_->refuse_on_loop("code_executor::stream()");
    kernel::kernel_session* session = nullptr;
    try {
        session = &impl_->session();
    } catch (...) {
        // No interpreter, no sandbox runtime: the execution's failure, its stream's one event.
        return code_execution_stream(std::make_unique<code_execution_stream::state>(
            app::start_failure(std::current_exception())));
    }
    auto& approvals = *impl_->approvals;
    // The approvals route to this execution from the moment its code goes to the kernel (which
    // may ask at once), on the session's strand; the previous execution detached them before it
    // gave its place back.
    auto kernel_stream = session->execute(code, timeout, [bridge = &approvals] { bridge->open(); });
    // Its turn: the executions and resets called before it run first. One that never ran (no
    // kernel could start, the kernel was lost, the executor stopped, cancelled while queued)
    // is a stream that yields how it ended.
    const bool started = kernel_stream->wait_started();
    if (started) {
        auto* raw = kernel_stream.get();
        approvals.attach({[raw] { raw->pause_timeout(); }, [raw] { raw->resume_timeout(); },
                          [raw] { raw->wake(); }});
    }
    auto* pool = impl_->pool.get();
    return code_execution_stream(std::make_unique<code_execution_stream::state>(
        std::move(kernel_stream), approvals, started,
        [pool] { pool->cancel_calls("the execution that made the call ended"); }));
}

void code_executor::async_execute(const std::string& code,
                                  std::optional<std::chrono::milliseconds> timeout,
                                  std::function<void(code_execution_step)> on_step) {
    core::work_pool* setup = nullptr;
    boost::asio::io_context* loop = nullptr;
    {
        std::lock_guard lock(impl_->mutex);
        impl_->ensure_loop();
        loop = impl_->loop;
        if (impl_->kernel_session && impl_->pending_setups == 0) {
            setup = nullptr;
        } else {
            if (!impl_->setup_work) {
                impl_->setup_work = std::make_unique<core::work_pool>("executor-setup", 1);
            }
            setup = impl_->setup_work.get();
            ++impl_->pending_setups;
        }
    }
    if (!setup) {
        impl_->begin_async(code, timeout, std::move(on_step));
        return;
    }
    // The first execution builds the session; the interpreter probe it runs blocks, so on a
    // worker of the executor's, never on the loop. Later calls queue behind it, in call order.
    setup->post([impl = impl_.get(), loop, code, timeout, on_step = std::move(on_step)]() mutable {
        std::optional<code_execution_failure> failed;
        try {
            impl->session();
        } catch (...) {
            try {
                failed = app::start_failure(std::current_exception());
            } catch (const std::exception& e) {  // not a failed start: still this call's end
                failed = code_execution_failure{code_execution_failure::kind::start_failed,
                                                e.what(),
                                                "",
                                                "KernelStartError",
                                                "",
                                                false};
            }
        }
        if (failed) {
            boost::asio::post(
                *loop, [on_step = std::move(on_step), failure = *failed] { on_step(failure); });
        } else {
            impl->begin_async(code, timeout, std::move(on_step));
        }
        std::lock_guard lock(impl->mutex);
        --impl->pending_setups;
    });
}

void code_executor::impl::begin_async(const std::string& code,
                                      std::optional<std::chrono::milliseconds> timeout,
                                      std::function<void(code_execution_step)> on_step) {
    auto& kernels = session();  // built: returns at once
    std::shared_ptr<app::approval_bridge> bridge;
    app::mcp_client_pool* calls = nullptr;
    {
        std::lock_guard lock(mutex);
        bridge = approvals;
        calls = pool.get();
    }
    // As stream(): the approvals route to this execution from the moment its code goes to the
    // kernel; the driver attaches them when it sees the start.
    auto kernel_stream = kernels.execute(code, timeout, [raw = bridge.get()] { raw->open(); });
    auto driver = std::make_shared<app::async_execution>(
        *loop, std::move(kernel_stream), std::move(bridge),
        [calls] { calls->cancel_calls("the execution that made the call ended"); },
        std::move(on_step));
    driver->begin();
}

code_execution_result code_executor::execute(const std::string& code,
                                             std::optional<std::chrono::milliseconds> timeout) {
    impl_->refuse_on_loop("code_executor::execute()");
    // A thin layer over async_execute(): answer the approvals, wait for the last step.
    std::promise<code_execution_step> last;
    async_execute(code, timeout, [&last](code_execution_step step) {
        if (auto* request = std::get_if<approval_request>(&step)) {
            // Nobody is asked here, so a save into the user library or dependencies to add are
            // refused (stream() asks).
            if (request->needs_a_person()) {
                request->reject(
                    "execute() asks nobody; a save into the user library or dependencies to add "
                    "need stream()");
            } else {
                request->accept();
            }
        } else if (!std::holds_alternative<code_execution_chunk>(step)) {
            last.set_value(std::move(step));
        }
    });
    auto step = last.get_future().get();
    if (auto* failure = std::get_if<code_execution_failure>(&step)) {
        throw code_execution_error(std::move(*failure));  // the blocking API's edge
    }
    return std::get<code_execution_result>(std::move(step));
}

void code_executor::reset() {
    impl_->refuse_on_loop("code_executor::reset()");
    try {
        auto& session = impl_->session();
        // In line with executions: the reset waits for those called before it instead of
        // cutting them off, and the MCP sessions close on its turn, before the kernel is swapped.
        auto* pool = impl_->pool.get();
        session.reset([pool] { pool->close_sessions(); });
    } catch (...) {
        throw code_execution_error(app::start_failure(std::current_exception()));
    }
}

void code_executor::cancel() {
    std::lock_guard lock(impl_->mutex);
    // The interrupt also ends a call waiting for approval (the kernel's wait is interruptible);
    // the request is rejected when the execution ends. Rejecting it here as well would race
    // with the interrupt: code that ends at the moment SIGINT lands can leave ipykernel
    // without sending its reply.
    if (impl_->kernel_session) impl_->kernel_session->cancel();
}

std::vector<std::string> code_executor::register_mcp_server(
    const std::string& name, const nlohmann::json& params, bool generate_sources,
    std::vector<std::string>* loose_typing, const mcp::jsonrpc::cancellation_token* cancellation) {
    impl_->refuse_on_loop("code_executor::register_mcp_server()");
    impl::validate_registrable_name(name);
    app::mcp_client_pool* pool = nullptr;
    {
        std::lock_guard lock(impl_->mutex);
        impl_->start_tool_services();
        pool = impl_->pool.get();
    }
    const auto previous = pool->params_of(name);
    pool->register_server(name, params);
    impl_->tool_names->forget(name);
    if (!generate_sources) return {};
    try {
        return app::generate_from_pool(
            *pool, name, impl_->options.workspace, "mcptools", loose_typing,
            cancellation ? *cancellation : mcp::jsonrpc::cancellation_token());
    } catch (...) {
        // A failed re-registration leaves the working one (and its mcptools/) in place.
        if (previous) {
            pool->register_server(name, *previous);
        } else {
            pool->unregister_server(name);
        }
        throw;
    }
}

std::string code_executor::containment_summary() const {
    std::lock_guard lock(impl_->mutex);
    if (!impl_->containment) return "not started";
    const auto& mechanism = impl_->containment->mechanism();
    return mechanism.summary + (mechanism.why.empty() ? "" : "; " + mechanism.why);
}

std::vector<mcp_tool_name> code_executor::mcp_tool_names(std::vector<std::string>& unreachable) {
    impl_->refuse_on_loop("code_executor::mcp_tool_names()");
    {
        std::lock_guard lock(impl_->mutex);
        impl_->start_tool_services();
    }
    std::vector<mcp_tool_name> names;
    for (const auto& server : impl_->pool->server_names()) {
        try {
            for (auto& tool : impl_->tool_names->tools_of(server)) {
                names.push_back({server, std::move(tool.tool_name), std::move(tool.python_name)});
            }
        } catch (const std::exception& e) {
            unreachable.push_back(server + ": " + e.what());
        }
    }
    return names;
}

const std::filesystem::path& code_executor::python() const {
    return impl_->python;
}

int code_executor::kernel_pid() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->kernel_session ? impl_->kernel_session->kernel_pid() : 0;
}

}  // namespace ipybox
