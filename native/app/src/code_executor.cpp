#include "ipybox/code_executor.hpp"

#include "approval_bridge.hpp"
#include "execution_errors.hpp"
#include "ipybox/codegen/naming.hpp"
#include "ipybox/core/log.hpp"
#include "ipybox/core/private_directory.hpp"
#include "ipybox/core/random.hpp"
#include "ipybox/kernel/interpreter.hpp"
#include "ipybox/kernel/kernel_session.hpp"
#include "ipybox/mcp_sources.hpp"
#include "ipybox/process/environment.hpp"
#include "ipybox/sandbox/srt_launcher.hpp"
#include "ipybox/sandbox/srt_settings.hpp"
#include "ipybox/toolserver/routes.hpp"
#include "ipybox/toolserver/tool_server.hpp"
#include "kernel_sandboxing.hpp"
#include "mcp_client_pool.hpp"
#include "mcp_runtime.hpp"
#include "pool_tool_invoker.hpp"
#include "source_generation.hpp"
#include "tool_name_index.hpp"
#include "user_library_writer.hpp"

namespace ipybox {
namespace {

// A name kernel code can import as mcptools.<name>, and not the one shell approvals use.
void validate_registrable_name(const std::string& name) {
    codegen::validate_server_name(name);
    if (name == toolserver::shell_server_name) {
        throw std::invalid_argument("the server name '" + name +
                                    "' is reserved: approval requests for shell commands "
                                    "use it; choose another name");
    }
}

}  // namespace

code_executor::code_executor(code_executor_options options) : options_(std::move(options)) {
    for (const auto& [name, params] : options_.mcp_servers) validate_registrable_name(name);
    if (options_.sandbox) sandbox::srt_settings(options_.sandbox->settings, {});  // validates
    if (options_.workspace.empty()) options_.workspace = std::filesystem::current_path();
    options_.workspace =
        std::filesystem::weakly_canonical(std::filesystem::absolute(options_.workspace));
    for (auto& root : options_.library_roots) {
        root = std::filesystem::weakly_canonical(std::filesystem::absolute(root));
    }
    if (options_.images_directory.empty())
        options_.images_directory = options_.workspace / "images";
}

code_executor::~code_executor() {
    stop();
}

void code_executor::start_tool_services() {
    if (tool_server_) return;
    private_dir_ = std::make_unique<core::private_directory>("ipybox-");
    runtime_ = std::make_unique<app::mcp_runtime>();
    app::pool_options pool_options;
    // ${VAR}: the host's environment wins over the workspace .env, which is re-read at every
    // server start so that edits apply without restarting ipybox.
    pool_options.variables = host_variables(options_.host_environment, options_.workspace / ".env");
    pool_options.default_cwd = options_.workspace;
    pool_options.inherited_environment =
        process::filter_environment(options_.host_environment, process::default_allowlist());
    pool_options.connect_timeout = options_.mcp_connect_timeout;
    pool_options.call_timeout = options_.tool_call_timeout;
    pool_ = std::make_unique<app::mcp_client_pool>(runtime_->io(), pool_options);
    for (const auto& [name, params] : options_.mcp_servers) pool_->register_server(name, params);
    approvals_ = std::make_unique<app::approval_bridge>(options_.approve_tool_calls,
                                                        options_.approval_timeout);
    // Rules may name a tool by its Python name too; only a deciding gate needs to know it.
    tool_names_ = std::make_unique<app::tool_name_index>(*pool_);
    naming_gate_ = std::make_unique<app::python_naming_gate>(*approvals_, *tool_names_);
    invoker_ = std::make_unique<app::pool_tool_invoker>(*pool_, options_.workspace,
                                                        options_.images_directory);
    // A sandboxed kernel reads the user library but may not write it: ipybox saves there on
    // its behalf, after the same approval as a tool call (POST /gentools).
    if (options_.sandbox && !options_.library_roots.empty()) {
        library_writer_ = std::make_unique<app::user_library_writer>(options_.library_roots[0]);
    }
    tool_token_ = core::random_hex(32);
    // In a folder of its own, which a sandboxed kernel may see while the rest is hidden.
    const auto tools_directory = private_dir_->path() / "tools";
    std::filesystem::create_directories(tools_directory);
    tool_server_ = std::make_unique<toolserver::tool_server>(
        runtime_->io(),
        toolserver::tool_server_options{tools_directory / "tools.sock", tool_token_},
        options_.approve_tool_calls ? static_cast<approval::gate&>(*naming_gate_) : *approvals_,
        *invoker_, options_.approve_shell_commands ? &approvals_->asking_gate() : nullptr,
        library_writer_.get());
}

kernel::kernel_session& code_executor::session() {
    std::lock_guard lock(mutex_);
    if (session_) return *session_;
    // What the kernel (and the interpreter probe) inherit from the host: the allowlist only.
    const auto inherited =
        process::filter_environment(options_.host_environment, process::default_allowlist());
    app::translate_errors([&] {
        kernel::interpreter_search search;
        search.explicit_path = options_.python;
        search.env_override = options_.python_override;
        const auto path = options_.host_environment.find("PATH");
        search.path_variable = path != options_.host_environment.end() ? path->second : "";
        search.environment = inherited;
        if (options_.sandbox) {
            search.untrusted_roots.push_back(
                std::filesystem::weakly_canonical(std::filesystem::absolute(options_.workspace)));
        }
        python_ = kernel::find_interpreter(search).chosen.path;
        return 0;
    });
    std::filesystem::create_directories(options_.workspace);
    start_tool_services();

    kernel::session_options session_options;
    auto& launch = session_options.launch;
    launch.python = python_;
    launch.runtime_directory = options_.runtime_directory;
    launch.working_directory = options_.workspace;
    launch.transport = options_.transport;
    launch.environment = inherited;
    if (!launch.environment.count("LANG")) launch.environment["LANG"] = "C.UTF-8";
    for (const auto& [name, value] : options_.kernel_env) launch.environment[name] = value;
    // The kernel learns where the tool server is and the token it needs; nothing else of the
    // host's MCP configuration reaches it.
    launch.environment["IPYBOX_TOOL_SOCKET"] = tool_server_->socket_path().string();
    launch.environment["IPYBOX_TOOL_TOKEN"] = tool_token_;
    // Loads ipybox_runtime.shell_approval into the kernel (kernel_main.py).
    if (options_.approve_shell_commands) {
        launch.environment["IPYBOX_SHELL_APPROVAL"] = "1";
    } else {
        launch.environment.erase("IPYBOX_SHELL_APPROVAL");
    }
    // The user-level gentools roots (ipybox_runtime.library).
    std::string roots;
    for (const auto& root : options_.library_roots) {
        roots += (roots.empty() ? "" : ":") + root.string();
    }
    launch.environment["IPYBOX_LIBRARY_ROOTS"] = roots;
    // new_gentool(scope="user") asks the tool server to write (ipybox_runtime.gentools).
    if (library_writer_) {
        launch.environment["IPYBOX_LIBRARY_SAVE"] = "host";
    } else {
        launch.environment.erase("IPYBOX_LIBRARY_SAVE");
    }
    if (options_.sandbox)
        app::translate_errors([&] {
            sandbox_kernel_launch(launch);
            return 0;
        });
    // Every kernel's process tree is contained (its own cgroup where ipybox can make one) and
    // ends with the kernel; the keeper ends it should ipybox itself be killed.
    app::translate_errors([&] {
        try {
            if (!containment_) containment_ = std::make_shared<process::containment_host>();
        } catch (const process::process_error& e) {
            throw kernel::kernel_start_error(e.what());
        }
        return 0;
    });
    launch.containment = containment_;
    launch.limits = options_.limits;
    session_options.images_directory = options_.images_directory;
    session_options.max_output_bytes = options_.max_output_bytes;
    session_options.start_timeout = options_.start_timeout;
    session_options.keep_spare = options_.keep_spare_kernel;
    session_ = std::make_unique<kernel::kernel_session>(std::move(session_options));
    core::logger("app")->info("kernel interpreter {}, workspace {}", python_.string(),
                              options_.workspace.string());
    return *session_;
}

void code_executor::sandbox_kernel_launch(kernel::kernel_launch& launch) {
    const auto srt = sandbox::find_srt(options_.sandbox->srt, options_.host_environment,
                                       options_.sandbox->srt_fallbacks);
    // The settings files live where no kernel can write: a sandboxed kernel must not be able to
    // loosen the sandbox of the kernel that replaces it.
    sandbox_dir_ = std::make_unique<core::private_directory>("ipybox-sbx-");
    launch.runtime_base = private_dir_->path();
    app::kernel_sandbox_context context;
    context.srt = srt;
    context.settings_directory = sandbox_dir_->path();
    context.workspace = options_.workspace;
    context.visible = {options_.runtime_directory, tool_server_->socket_path().parent_path(),
                       python_.parent_path().parent_path()};  // the interpreter's prefix
    const auto variable = [&](const char* name) {
        const auto it = options_.host_environment.find(name);
        return it == options_.host_environment.end() ? std::string() : it->second;
    };
    if (!variable("HOME").empty()) context.home = variable("HOME");
    // ipybox's state (the registry of servers, with the secrets given in their parameters),
    // where this session keeps it and where sessions without XDG_STATE_HOME keep it. Made now if
    // missing: srt hides only what exists when a kernel starts.
    std::vector<std::filesystem::path> states;
    if (!variable("XDG_STATE_HOME").empty()) states.emplace_back(variable("XDG_STATE_HOME"));
    if (!context.home.empty()) states.push_back(context.home / ".local" / "state");
    for (auto state : states) {
        state /= "ipybox";
        std::error_code ignored;
        std::filesystem::create_directories(state, ignored);
        std::filesystem::permissions(state, std::filesystem::perms::owner_all, ignored);
        context.state_directories.push_back(state);
    }
    // Readable, and not writable: only the workspace and the kernel's own folder are. The
    // user's library is made now if missing, so that what ipybox saves there for this kernel
    // is visible to it (srt exposes only what exists when a kernel starts).
    if (!options_.library_roots.empty()) {
        std::error_code ignored;
        std::filesystem::create_directories(options_.library_roots[0], ignored);
    }
    for (const auto& root : options_.library_roots) {
        if (std::filesystem::exists(root)) context.visible.push_back(root);
    }
    launch.wrap = app::srt_kernel_wrapper(*options_.sandbox, context);
    core::logger("app")->info("kernels run sandboxed by {} (settings in {})", srt.string(),
                              sandbox_dir_->path().string());
}

void code_executor::start() {
    auto& s = session();
    app::translate_errors([&] {
        s.start();
        return 0;
    });
}

void code_executor::stop() {
    std::unique_ptr<kernel::kernel_session> session;
    {
        std::lock_guard lock(mutex_);
        session = std::move(session_);
    }
    if (session) session->stop();
    // A stream consumed on another thread still uses the approval bridge until it sees the end
    // of its execution, which stopping the session has just caused; wait for it to let go.
    if (!stream_slot_.wait_idle_for(std::chrono::seconds(10))) {
        core::logger("app")->warn("a code execution stream is still in use while stopping");
    }
    std::lock_guard lock(mutex_);
    if (approvals_) approvals_->detach();
    // Closing the sessions fails calls still in flight, which lets the tool server's handlers
    // return; only then can the tool server stop.
    if (pool_) pool_->close_sessions();
    if (tool_server_) tool_server_->stop();
    tool_server_.reset();
    invoker_.reset();
    library_writer_.reset();
    naming_gate_.reset();
    tool_names_.reset();
    approvals_.reset();
    pool_.reset();
    runtime_.reset();
    private_dir_.reset();
    sandbox_dir_.reset();
}

code_execution_stream code_executor::stream(const std::string& code,
                                            std::optional<std::chrono::milliseconds> timeout) {
    auto& s = session();
    // One stream at a time, so that every approval request reaches the stream it belongs to.
    stream_slot_.acquire();
    try {
        approvals_->open();  // the kernel may ask before execute() returns
        auto kernel_stream = app::translate_errors([&] { return s.execute(code, timeout); });
        auto* raw = kernel_stream.get();
        approvals_->attach({[raw] { raw->pause_timeout(); }, [raw] { raw->resume_timeout(); },
                            [raw] { raw->wake(); }});
        auto* pool = pool_.get();
        return code_execution_stream(std::move(kernel_stream), *approvals_, stream_slot_, [pool] {
            pool->cancel_calls("the execution that made the call ended");
        });
    } catch (...) {
        approvals_->detach();
        stream_slot_.release();
        throw;
    }
}

code_execution_result code_executor::execute(const std::string& code,
                                             std::optional<std::chrono::milliseconds> timeout) {
    auto events = stream(code, timeout);
    while (auto event = events.next()) {
        if (auto* request = std::get_if<approval_request>(&*event)) {
            request->accept();
        } else if (auto* result = std::get_if<code_execution_result>(&*event)) {
            return std::move(*result);
        }
    }
    return {};
}

void code_executor::reset() {
    auto& s = session();
    // In line with executions: a reset waits for the running stream instead of cutting it off.
    stream_slot_.acquire();
    try {
        {
            std::lock_guard lock(mutex_);
            if (pool_) pool_->close_sessions();
        }
        app::translate_errors([&] {
            s.reset();
            return 0;
        });
    } catch (...) {
        stream_slot_.release();
        throw;
    }
    stream_slot_.release();
}

void code_executor::cancel() {
    std::lock_guard lock(mutex_);
    // The interrupt also ends a call waiting for approval (the kernel's wait is interruptible);
    // the request is rejected when the execution ends. Rejecting it here as well would race
    // with the interrupt: code that ends at the moment SIGINT lands can leave ipykernel
    // without sending its reply.
    if (session_) session_->cancel();
}

std::vector<std::string> code_executor::register_mcp_server(
    const std::string& name, const nlohmann::json& params, bool generate_sources,
    std::vector<std::string>* loose_typing) {
    validate_registrable_name(name);
    app::mcp_client_pool* pool = nullptr;
    {
        std::lock_guard lock(mutex_);
        start_tool_services();
        pool = pool_.get();
    }
    const auto previous = pool->params_of(name);
    pool->register_server(name, params);
    tool_names_->forget(name);
    if (!generate_sources) return {};
    try {
        return app::generate_from_pool(*pool, name, options_.workspace, "mcptools", loose_typing);
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
    std::lock_guard lock(mutex_);
    if (!containment_) return "not started";
    const auto& mechanism = containment_->mechanism();
    return mechanism.summary + (mechanism.why.empty() ? "" : "; " + mechanism.why);
}

std::vector<mcp_tool_name> code_executor::mcp_tool_names(std::vector<std::string>& unreachable) {
    {
        std::lock_guard lock(mutex_);
        start_tool_services();
    }
    std::vector<mcp_tool_name> names;
    for (const auto& server : pool_->server_names()) {
        try {
            for (auto& tool : tool_names_->tools_of(server)) {
                names.push_back({server, std::move(tool.tool_name), std::move(tool.python_name)});
            }
        } catch (const std::exception& e) {
            unreachable.push_back(server + ": " + e.what());
        }
    }
    return names;
}

const std::filesystem::path& code_executor::python() const {
    return python_;
}

int code_executor::kernel_pid() const {
    std::lock_guard lock(mutex_);
    return session_ ? session_->kernel_pid() : 0;
}

}  // namespace ipybox
