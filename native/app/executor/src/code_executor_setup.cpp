// Building a code_executor's parts on first use: the tool services (the MCP client pool, the
// approval gates, the tool server) and the kernel session with its launch (interpreter,
// environment, sandbox, containment).
#include "approval_bridge.hpp"
#include "code_executor_impl.hpp"
#include "dependency_runner.hpp"
#include "executor_gate.hpp"
#include "ipybox/approval/request.hpp"
#include "ipybox/codegen/naming.hpp"
#include "ipybox/core/log.hpp"
#include "ipybox/core/random.hpp"
#include "ipybox/core/redactor.hpp"
#include "ipybox/executor/mcp_runtime.hpp"
#include "ipybox/executor/package_installer.hpp"
#include "ipybox/gentools/user_library_writer.hpp"
#include "ipybox/kernel/interpreter.hpp"
#include "ipybox/mcp_sources.hpp"
#include "ipybox/process/environment.hpp"
#include "ipybox/process/executables.hpp"
#include "ipybox/sandbox/srt_launcher.hpp"
#include "ipybox/sandbox/srt_settings.hpp"
#include "ipybox/workspace/placeholders.hpp"
#include "ipybox/workspace/secret_strength.hpp"
#include "kernel_sandboxing.hpp"
#include "mcp_client_pool.hpp"
#include "pool_tool_invoker.hpp"
#include "tool_name_index.hpp"

namespace ipybox {

void code_executor::impl::validate_registrable_name(const std::string& name) {
    codegen::validate_server_name(name);
    if (name == approval::reserved_server_name) {
        throw std::invalid_argument("the server name '" + name +
                                    "' is reserved: approval policies name shell commands and "
                                    "saves with it; choose another name");
    }
}

code_executor::impl::impl(code_executor_options given) : options(std::move(given)) {
    for (const auto& [name, params] : options.mcp_servers) validate_registrable_name(name);
    if (options.sandbox) sandbox::srt_settings(options.sandbox->settings, {});  // validates
    if (options.workspace.empty()) options.workspace = std::filesystem::current_path();
    options.workspace =
        std::filesystem::weakly_canonical(std::filesystem::absolute(options.workspace));
    for (auto& root : options.library_roots) {
        root = std::filesystem::weakly_canonical(std::filesystem::absolute(root));
    }
    if (options.images_directory.empty()) options.images_directory = options.workspace / "images";
    if (options.sandbox) {
        // What ipybox runs on the host (srt, and what srt runs: node, bwrap, socat, rg; MCP
        // servers named by a bare command such as npx; the interpreter probe) is never found in
        // the workspace, where the sandboxed kernel could have planted it (an activated .venv
        // puts <workspace>/.venv/bin on PATH). The kernel inherits the same PATH.
        auto& path = options.host_environment["PATH"];
        const auto kept = process::path_outside(path, {options.workspace});
        if (kept != path) {
            core::logger("app")->info(
                "--sandbox: PATH entries that are relative or lie in the workspace are left out "
                "of what ipybox starts ({} -> {})",
                path, kept);
        }
        path = kept;
    }
}

code_executor::impl::~impl() {
    try {
        stop();
    } catch (const std::exception& e) {  // e.g. destroyed on the loop's own thread
        core::logger("app")->error("stopping the code executor failed: {}", e.what());
    }
}

void code_executor::impl::ensure_loop() {
    if (loop) return;
    if (options.io_context) {
        loop = options.io_context;
    } else {
        runtime = std::make_unique<app::mcp_runtime>();
        loop = &runtime->io();
    }
}

void code_executor::impl::start_tool_services() {
    if (tool_server) return;
    private_dir = std::make_unique<core::private_directory>("ipybox-");
    ensure_loop();
    app::pool_options pool_options;
    // ${VAR}: the host's environment wins over the workspace .env, which is re-read at every
    // server start so that edits apply without restarting ipybox.
    pool_options.variables = host_variables(options.host_environment, options.workspace / ".env");
    if (options.sandbox) {
        // A sandboxed kernel must not be able to find a filled value by guessing it (redaction
        // tells it when a guess echoed back was right): guessable values are not filled.
        pool_options.variables = [lookup = pool_options.variables,
                                  allowed = options.sandbox->guessable_secrets_allowed](
                                     std::string_view name) -> std::optional<std::string> {
            auto value = lookup(name);
            if (value && name != workspace::workspace_variable && workspace::guessable(*value) &&
                allowed.count(std::string(name)) == 0) {
                throw workspace::guessable_secret_error({std::string(name)});
            }
            return value;
        };
    }
    pool_options.default_cwd = options.workspace;
    pool_options.inherited_environment =
        process::filter_environment(options.host_environment, process::default_allowlist());
    pool_options.connect_timeout = options.mcp_connect_timeout;
    pool_options.call_timeout = options.tool_call_timeout;
    pool = std::make_unique<app::mcp_client_pool>(*loop, pool_options);
    for (const auto& [name, params] : options.mcp_servers) pool->register_server(name, params);
    approvals = std::make_shared<app::approval_bridge>(*loop, options.approval_timeout);
    // Rules may name a tool by its Python name too; only a deciding gate needs to know it.
    tool_names = std::make_unique<app::tool_name_index>(*pool);
    // What is asked and what passes: executor_gate.hpp.
    gate = std::make_unique<app::executor_gate>(approvals, *tool_names, options.approve_tool_calls);
    invoker = std::make_unique<app::pool_tool_invoker>(*pool, options.workspace,
                                                       options.images_directory);
    // A sandboxed kernel reads the user library but may not write it: ipybox saves there on
    // its behalf (POST /gentools), and only once asked.
    if (options.sandbox && !options.library_roots.empty()) {
        library_writer = std::make_unique<app::user_library_writer>(options.library_roots[0]);
    }
    if (options.add_dependencies) {
        dependency_work = std::make_unique<core::work_pool>("dependencies", 1);
        dependencies = std::make_unique<app::dependency_runner>(
            *dependency_work, options.add_dependencies, options.dependencies_refusal,
            options.workspace);
    }
    tool_token = core::random_hex(32);
    // In a folder of its own, which a sandboxed kernel may see while the rest is hidden.
    const auto tools_directory = private_dir->path() / "tools";
    std::filesystem::create_directories(tools_directory);
    toolserver::tool_server_options server_options{tools_directory / "tools.sock", tool_token};
    server_options.shell_commands = options.approve_shell_commands;
    tool_server =
        std::make_unique<toolserver::tool_server>(*loop, std::move(server_options), *gate, *invoker,
                                                  library_writer.get(), dependencies.get());
}

kernel::kernel_session& code_executor::impl::session() {
    std::lock_guard lock(mutex);
    if (kernel_session) return *kernel_session;
    // What the kernel (and the interpreter probe) inherit from the host: the allowlist only.
    const auto inherited =
        process::filter_environment(options.host_environment, process::default_allowlist());
    {
        kernel::interpreter_search search;
        search.explicit_path = options.python;
        search.env_override = options.python_override;
        const auto path = options.host_environment.find("PATH");
        search.path_variable = path != options.host_environment.end() ? path->second : "";
        search.environment = inherited;
        if (options.sandbox) {
            search.untrusted_roots.push_back(
                std::filesystem::weakly_canonical(std::filesystem::absolute(options.workspace)));
        }
        python = kernel::find_interpreter(search).chosen.path;
    }
    std::filesystem::create_directories(options.workspace);
    start_tool_services();

    kernel::session_options session_options;
    auto& launch = session_options.launch;
    launch.python = python;
    launch.runtime_directory = options.runtime_directory;
    launch.working_directory = options.workspace;
    launch.transport = options.transport;
    launch.io = loop;  // the kernels' sockets, exits and output: no thread of their own
    launch.environment = inherited;
    if (!launch.environment.count("LANG")) launch.environment["LANG"] = "C.UTF-8";
    for (const auto& [name, value] : options.kernel_env) launch.environment[name] = value;
    // The kernel learns where the tool server is and the token it needs; nothing else of the
    // host's MCP configuration reaches it.
    launch.environment["IPYBOX_TOOL_SOCKET"] = tool_server->socket_path().string();
    launch.environment["IPYBOX_TOOL_TOKEN"] = tool_token;
    // Loads ipybox_runtime.shell_approval into the kernel (kernel_main.py).
    if (options.approve_shell_commands) {
        launch.environment["IPYBOX_SHELL_APPROVAL"] = "1";
    } else {
        launch.environment.erase("IPYBOX_SHELL_APPROVAL");
    }
    // Loads ipybox_runtime.shell_escape (the process-creation guards) and
    // ipybox_runtime.working_directory (the directory put back after each cell) into the kernel.
    const auto switch_variable = [&](const char* name, bool on) {
        if (on) {
            launch.environment[name] = "1";
        } else {
            launch.environment.erase(name);
        }
    };
    switch_variable("IPYBOX_SHELL_ESCAPE",
                    options.approve_shell_commands && options.require_shell_escape);
    switch_variable("IPYBOX_RESTORE_CWD", options.restore_working_directory);
    // The user-level gentools roots (ipybox_runtime.library).
    std::string roots;
    for (const auto& root : options.library_roots) {
        roots += (roots.empty() ? "" : ":") + root.string();
    }
    launch.environment["IPYBOX_LIBRARY_ROOTS"] = roots;
    // new_gentool(scope="user") asks the tool server to write (ipybox_runtime.creating).
    if (library_writer) {
        launch.environment["IPYBOX_LIBRARY_SAVE"] = "host";
    } else {
        launch.environment.erase("IPYBOX_LIBRARY_SAVE");
    }
    if (options.sandbox) sandbox_kernel_launch(launch);
    // Every kernel's process tree is contained (its own cgroup where ipybox can make one) and
    // ends with the kernel; the keeper ends it should ipybox itself be killed.
    try {
        if (!containment) containment = std::make_shared<process::containment_host>();
    } catch (const process::process_error& e) {
        throw kernel::kernel_start_error(e.what());  // a kernel cannot start without it
    }
    launch.containment = containment;
    launch.limits = options.limits;
    session_options.images_directory = options.images_directory;
    session_options.max_output_bytes = options.max_output_bytes;
    session_options.start_timeout = options.start_timeout;
    session_options.keep_spare = options.keep_spare_kernel;
    const auto fork_setting = options.host_environment.find("IPYBOX_FORK_KERNELS");
    if (!options.fork_kernels) {
        session_options.fork_kernels = false;
    } else if (fork_setting != options.host_environment.end() && fork_setting->second == "0") {
        session_options.fork_kernels = false;
        session_options.fork_disabled_reason = "IPYBOX_FORK_KERNELS=0 turns forking off";
    }
    session_options.shared_template = options.shared_template;
    launch.own_variables = {"IPYBOX_TOOL_SOCKET", "IPYBOX_TOOL_TOKEN"};
    launch.own_variables.insert(launch.own_variables.end(), options.kernel_own_variables.begin(),
                                options.kernel_own_variables.end());
    kernel_session = std::make_unique<kernel::kernel_session>(std::move(session_options));
    core::logger("app")->info("kernel interpreter {}, workspace {}", python.string(),
                              options.workspace.string());
    return *kernel_session;
}

void code_executor::impl::sandbox_kernel_launch(kernel::kernel_launch& launch) {
    const auto srt = sandbox::find_srt(options.sandbox->srt, options.host_environment,
                                       options.sandbox->srt_fallbacks, {options.workspace});
    // The settings files live where no kernel can write: a sandboxed kernel must not be able to
    // loosen the sandbox of the kernel that replaces it.
    sandbox_dir = std::make_unique<core::private_directory>("ipybox-sbx-");
    launch.runtime_base = private_dir->path();
    app::kernel_sandbox_context context;
    context.srt = srt;
    context.settings_directory = sandbox_dir->path();
    context.workspace = options.workspace;
    // The host's allowlisted variables, never --env, .env or KERNEL_ENV_*: srt is a Node
    // process outside the sandbox, and NODE_OPTIONS or LD_PRELOAD given for the kernel would
    // run code there.
    context.wrapper_environment =
        process::filter_environment(options.host_environment, process::default_allowlist());
    context.visible = {options.runtime_directory, tool_server->socket_path().parent_path(),
                       python.parent_path().parent_path()};  // the interpreter's prefix
    // The gentools scaffold new_gentool() copies, where ipybox_runtime.scaffold looks for it:
    // next to the runtime when installed (share/ipybox), at the root of a source checkout.
    for (const auto& base : {options.runtime_directory.parent_path(),
                             options.runtime_directory.parent_path().parent_path()}) {
        if (std::filesystem::is_directory(base / "gentools-template")) {
            context.visible.push_back(base / "gentools-template");
        }
    }
    const auto variable = [&](const char* name) {
        const auto it = options.host_environment.find(name);
        return it == options.host_environment.end() ? std::string() : it->second;
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
    if (!options.library_roots.empty()) {
        std::error_code ignored;
        std::filesystem::create_directories(options.library_roots[0], ignored);
    }
    for (const auto& root : options.library_roots) {
        if (std::filesystem::exists(root)) context.visible.push_back(root);
    }
    context.user_site_packages = app::user_site_packages(options.library_roots);
    context.unix_sockets = {tool_server->socket_path()};
    if (context.platform == sandbox::sandbox_platform::linux) {
        // Shared with every other ipybox process that runs sandboxed kernels in this workspace,
        // by way of ipybox's state directory; a private one when there is none.
        context.placeholders = std::make_shared<sandbox::placeholder_hold>(
            options.workspace, (states.empty() ? sandbox_dir->path() : states.front()) / "holds");
    }
    launch.wrap = app::srt_kernel_wrapper(*options.sandbox, context);
    launch.sandbox_settings = app::srt_kernel_settings(*options.sandbox, context);
    launch.sandbox_scratch = app::sandbox_scratch();
    core::logger("app")->info("kernels run sandboxed by {} (settings in {})", srt.string(),
                              sandbox_dir->path().string());
}

}  // namespace ipybox
