#include "kernel_unit.hpp"

#include "ipybox/core/log.hpp"
#include "ipybox/workspace/directory.hpp"
#include "ipybox/workspace/dotenv.hpp"

namespace ipybox::app {

code_executor_options executor_options_for(const mcp_server_options& options) {
    code_executor_options executor;
    executor.workspace = options.workspace;
    executor.python = options.python;
    executor.python_override = options.python_override;
    executor.host_environment = options.host_environment;
    for (const auto& [name, value] : workspace::load_dotenv(options.workspace / ".env")) {
        executor.host_environment.emplace(name, value);  // the real environment wins
    }
    constexpr std::string_view prefix = "KERNEL_ENV_";
    for (const auto& [name, value] : executor.host_environment) {
        if (name.size() > prefix.size() && name.rfind(prefix, 0) == 0) {
            executor.kernel_env[name.substr(prefix.size())] = value;
        }
    }
    // Packages from install_package live in the workspace and are on the kernel's path from the
    // start, so they import at once and survive reset().
    auto& python_path = executor.kernel_env["PYTHONPATH"];
    const auto site = (options.workspace / ".ipybox" / "site-packages").string();
    // It must exist before any kernel starts: Python caches a missing path entry as absent.
    // Created through the workspace's descriptor: a planted link at .ipybox is refused.
    workspace::directory::open_root(options.workspace)
        .make_directories(std::filesystem::path(".ipybox") / "site-packages");
    // The user's packages (install_package with scope "user") come after the project's, so a
    // project pins its own versions. Made now for the same reason; one that cannot be made (a
    // read-only home) stays on the path and holds nothing.
    auto path_entries = site;
    if (const auto user_site = user_site_packages(options.library_roots); !user_site.empty()) {
        std::error_code ignored;
        std::filesystem::create_directories(user_site, ignored);
        path_entries += ":" + user_site.string();
    }
    python_path = python_path.empty() ? path_entries : path_entries + ":" + python_path;
    executor.runtime_directory = options.runtime_directory;
    executor.keep_spare_kernel = options.keep_spare_kernel;
    executor.approve_tool_calls = true;  // decided by the approval policy in server_tools
    executor.approve_shell_commands = options.approve_shell_commands;
    executor.sandbox = options.sandbox;
    executor.limits = options.limits;
    // The model reads a few thousand characters of a cell's output; the file that keeps the
    // whole of a clipped output holds its first and last 2 MiB. This keeps ipybox mcp's own
    // memory well under 64 MiB whatever a cell prints.
    executor.max_output_bytes = 4 * 1024 * 1024;
    executor.library_roots = options.library_roots;
    // Host-side state (the remembered registrations) is none of the kernel's business.
    if (executor.sandbox && !options.registry_file.empty()) {
        executor.sandbox->unreadable.push_back(options.registry_file.parent_path());
    }
    return executor;
}

kernel_unit::kernel_unit(boost::asio::io_context& io, mcp_server_options options,
                         std::optional<std::filesystem::path> srt, approval::policy policy,
                         std::shared_ptr<kernel::shared_kernel_template> shared_template)
    : options_(std::move(options)), shared_template_(std::move(shared_template)) {
    auto set_up = std::make_shared<std::packaged_task<void()>>(
        [this, &io, srt = std::move(srt), policy = std::move(policy)]() mutable {
            this->set_up(io, std::move(srt), std::move(policy));
        });
    set_up_ = set_up->get_future().share();
    auto start = std::make_shared<std::packaged_task<void()>>([this] {
        set_up_.get();
        executor_->start();
    });
    started_ = start->get_future().share();
    kernel_calls_.post([set_up] { (*set_up)(); });
    kernel_calls_.post([start] { (*start)(); });
}

void kernel_unit::set_up(boost::asio::io_context& io, std::optional<std::filesystem::path> srt,
                         approval::policy policy) {
    registry_ = std::make_unique<server_registry>(options_.registry_file);
    std::filesystem::create_directories(options_.workspace);
    auto executor_options = executor_options_for(options_);
    if (executor_options.sandbox) executor_options.sandbox->srt = std::move(srt);  // found once
    // Saved actions flagged in earlier sessions (or since, by edits of mcptools/) are marked
    // from the kernel's start.
    executor_options.kernel_env["IPYBOX_CHANGED_TOOLS"] =
        pin_saved_actions(options_, *registry_).dump();
    executor_options.shared_template = shared_template_;
    executor_options.kernel_own_variables = {"IPYBOX_CHANGED_TOOLS"};
    // Kernel code's requests for a saved action's dependencies go to server_tools, which is made
    // after the executor (whose tool server may start earlier, restoring registrations); until
    // it is there, and once it is gone, they are refused. A request being served holds it.
    executor_options.add_dependencies = [target = target_](const approval::add_dependencies& what) {
        std::lock_guard lock(target->mutex);
        if (!target->tools) return dependencies_added{false, "ipybox is starting or stopping"};
        return target->tools->add_dependencies(what);
    };
    executor_options.dependencies_refusal = [target =
                                                 target_](const approval::add_dependencies& what) {
        std::lock_guard lock(target->mutex);
        if (!target->tools) return std::string("ipybox is starting or stopping");
        return target->tools->dependencies_refusal(what);
    };
    executor_options.io_context = &io;
    executor_ = std::make_unique<code_executor>(std::move(executor_options));
    for (const auto& [name, params] : registry_->load()) {
        try {
            executor_->register_mcp_server(name, params, /*generate_sources=*/false);
        } catch (const std::exception& e) {
            core::logger("server")->warn("cannot restore MCP server '{}': {}", name, e.what());
        }
    }
    tools_ =
        std::make_unique<server_tools>(io, options_, *executor_, *registry_, std::move(policy));
    std::lock_guard lock(target_->mutex);
    target_->tools = tools_.get();
}

kernel_unit::~kernel_unit() {
    retire();
}

void kernel_unit::wait_started() {
    started_.get();
}

server_tools& kernel_unit::tools() {
    set_up_.get();
    return *tools_;
}

void kernel_unit::retire() {
    std::call_once(retired_, [this] {
        {
            std::lock_guard lock(target_->mutex);
            target_->tools = nullptr;
        }
        // The set-up first (it is quick); the start it was followed by is abandoned by stop().
        set_up_.wait();
        if (executor_) executor_->cancel();  // a cell running now ends
        if (tools_) tools_->stop_server_work("the kernel is being stopped");
        if (executor_) executor_->stop();
        kernel_calls_.join();
    });
}

}  // namespace ipybox::app
