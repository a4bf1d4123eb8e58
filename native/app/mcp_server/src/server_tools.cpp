#include "server_tools.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>

#include "cell_output.hpp"
#include "ipybox/codegen/naming.hpp"
#include "ipybox/core/log.hpp"
#include "ipybox/core/random.hpp"
#include "ipybox/core/text.hpp"
#include "ipybox/executor/package_installer.hpp"
#include "ipybox/gentools/gentools_library.hpp"
#include "ipybox/mcp/jsonrpc/completion.hpp"
#include "ipybox/toolserver/routes.hpp"
#include "ipybox/workspace/directory.hpp"
#include "progress_ticker.hpp"
#include "server_tool_support.hpp"

namespace ipybox::app {
namespace {

using detail::argument_error;
using detail::guarded;
using mcp::session::call_tool_result;
using nlohmann::json;

// Python that forgets the modules of mcptools.<name> so the next import reads the new files.
// One line per tool: how to call it and what it does (search.describe_server), from the files
// just generated, read in the kernel like every search.
std::string describe_code(const std::string& server_name) {
    return "print(__import__('ipybox_runtime.search', fromlist=['describe_server'])"
           ".describe_server('" +
           server_name + "'))";
}

std::string unload_code(const std::string& server_name) {
    return "__import__('ipybox_runtime.modules', fromlist=['unload']).unload('mcptools." +
           server_name + "')";
}

}  // namespace

server_tools::server_tools(boost::asio::io_context& io, const mcp_server_options& options,
                           code_executor& executor, server_registry& registry,
                           approval::policy policy)
    : io_(io),
      options_(options),
      executor_(executor),
      registry_(registry),
      policy_(std::move(policy)),
      parked_(io, options.approval_wait) {}

call_tool_result server_tools::register_server(const json& arguments,
                                               const mcp::session::request_context& context) {
    // Either the client's notifications/cancelled or shutdown ends the work.
    mcp::jsonrpc::cancellation_source cancelled;
    const auto forward = [cancelled](const std::string& why) mutable { cancelled.cancel(why); };
    const auto by_client = context.cancellation().on_cancel(forward);
    const auto by_shutdown = stopping_.token().on_cancel(forward);
    const auto cancellation = cancelled.token();
    if (cancellation.cancelled()) {  // while it waited for a thread
        return call_tool_result::text("[ipybox] cancelled before it started", true);
    }
    const auto& name = arguments.at("server_name").get_ref<const std::string&>();
    const auto& params = arguments.at("server_params");
    codegen::validate_server_name(name);  // before its folder is read
    const auto previous = module_hashes(options_.workspace / "mcptools", name);
    std::vector<std::string> modules;
    std::vector<std::string> loose_typing;
    try {
        modules = executor_.register_mcp_server(name, params, true, &loose_typing, &cancellation);
    } catch (const std::invalid_argument&) {
        throw;
    } catch (const std::exception& e) {
        throw std::runtime_error("cannot reach MCP server '" + name + "': " + e.what());
    }
    registry_.remember(name, params);
    std::string text;
    if (!previous.empty() && module_hashes(options_.workspace / "mcptools", name) == previous) {
        // Registered again with the same tools: the agent has had their lines already.
        text = "mcptools." + name + ": " + std::to_string(modules.size()) +
               " tools, unchanged since the last registration (search_tools shows them)\n";
    } else {
        try {  // the server's name is an identifier (validate_server_name): no quoting needed
            text = executor_.execute(describe_code(name)).text + "\n";
        } catch (const std::exception& e) {
            core::logger("server")->warn("cannot describe the tools of '{}': {}", name, e.what());
            text.clear();
        }
    }
    if (text.find("mcptools." + name + ": ") != 0) {  // the kernel could not: the names alone
        text.clear();
        for (const auto& module : modules) text += module + "\n";
    }
    if (!loose_typing.empty()) {
        text += "\nTyped more loosely than the schema (the value is sent as given):\n";
        for (const auto& note : loose_typing) text += "- " + note + "\n";
    }
    text += policy_report();
    if (executor_.kernel_pid() != 0) {
        const auto unloaded = executor_.execute(unload_code(name)).text;
        if (unloaded != "0" && !unloaded.empty()) {
            text += "\nModules of mcptools." + name +
                    " imported before were unloaded; import them again to use the new API.\n";
        }
    }
    const auto flags = update_action_pins(previous);
    if (!flags.empty()) {
        text +=
            "\nSaved code actions call MCP tools whose schema changed since they were "
            "saved:\n" +
            describe_flags(flags) +
            "Read the tools' new interfaces, update these actions and check them "
            "(from ipybox_runtime.checks import check; print(check())).\n";
        send_flags_to_kernel(flags);
    }
    return call_tool_result::text(text);
}

std::string server_tools::policy_report() {
    if (policy_.rules().empty()) return {};
    std::vector<std::string> unreachable;
    std::vector<approval::request> tools;
    for (auto& tool : executor_.mcp_tool_names(unreachable)) {
        tools.push_back(approval::tool_call{std::move(tool.server_name), std::move(tool.tool_name),
                                            nlohmann::json::object(), std::move(tool.python_name)});
    }
    if (options_.approve_shell_commands) {
        for (auto& form : approval::shell_command_forms()) tools.push_back(std::move(form));
    }
    if (options_.sandbox) {  // saves into the user library (routes.hpp, POST /gentools)
        tools.push_back(approval::save_action{});
    }
    const auto missing = policy_.rules_covering_none(tools);
    if (missing.empty()) return {};
    std::string report =
        "\nApproval policy: these rules match none of the tools of the registered servers "
        "(check the server and tool names; a rule may use the MCP or the Python name):\n" +
        missing;
    for (const auto& server : unreachable) {
        report += "(the tools of " + server + " could not be listed)\n";
    }
    core::logger("approval")->warn("{}", report.substr(1));
    return report;
}

bool server_tools::decide(approval_request& request, const mcp::session::request_context& context) {
    // A save into the user library passes only by a rule naming it exactly (policy.hpp).
    switch (policy_.action_for(request.what())) {
        case approval::action::allow:
            request.accept();
            return false;
        case approval::action::deny:
            request.reject("denied by the approval policy");
            return false;
        case approval::action::ask:
            break;
    }
    const auto cannot_ask = [&request] {
        request.reject(
            "the approval policy asks the user, but this MCP client cannot ask "
            "(it does not support elicitation)");
        return false;
    };
    if (context.modern()) {  // asked through the request's answer (multi round-trip requests)
        if (!context.modern()->supports("elicitation")) return cannot_ask();
        return true;
    }
    auto session = context.session();
    if (!session || !session->client_supports("elicitation")) return cannot_ask();
    const json params = approval_elicitation(request);
    // Asked and left: the answer decides the request whenever it comes (on the loop's thread),
    // and this thread goes back to the execution's stream meanwhile.
    mcp::jsonrpc::request_options no_timeout;
    no_timeout.timeout = std::chrono::milliseconds(0);
    try {
        session->request(
            "elicitation/create", params, no_timeout,
            [request](const std::exception_ptr& error, const json& answer) mutable {
                if (error) {
                    try {
                        std::rethrow_exception(error);
                    } catch (const std::exception& e) {
                        request.reject(std::string("asking the user failed: ") + e.what());
                    } catch (...) {
                        request.reject("asking the user failed");
                    }
                    return;
                }
                approves(answer) ? request.accept() : request.reject("the user declined");
            });
    } catch (const std::exception& e) {
        request.reject(std::string("asking the user failed: ") + e.what());
    }
    return false;
}

std::filesystem::path server_tools::save_full_output(const std::string& text) const {
    // Through a descriptor of the workspace: a link planted at .ipybox or .ipybox/outputs is
    // refused, never written through.
    return workspace::directory::open_root(options_.workspace)
        .write_file(std::filesystem::path(".ipybox") / "outputs" /
                        ("output-" + core::random_hex(4) + ".txt"),
                    text);
}

call_tool_result server_tools::call(const server_tool& tool, const json& arguments,
                                    const mcp::session::request_context& context) {
    return guarded(tool.name.c_str(), [&] {
        return (this->*tool.handler)(checked_arguments(tool, arguments), context);
    });
}

call_tool_result server_tools::execute_cell(const json& arguments,
                                            const mcp::session::request_context& context) {
    if (context.request_state()) return resume_cell(arguments, context);
    if (parked_.any()) {
        throw std::invalid_argument(
            "a cell of this kernel is waiting for the user's answer to an approval: retry that "
            "call with the answer (its inputResponses and requestState) first, or wait until it "
            "stops waiting (" +
            std::to_string(
                std::chrono::duration_cast<std::chrono::seconds>(options_.approval_wait).count()) +
            " s)");
    }
    const auto& code = arguments.at("code").get_ref<const std::string&>();
    const auto timeout_seconds = arguments.at("timeout").get<double>();
    // An integer (server_tool_table.cpp); past 10^15 the output is never clipped anyway.
    const auto max_chars =
        static_cast<long long>(std::min(arguments.at("max_output_chars").get<double>(), 1e15));
    if (context.cancellation().cancelled()) {
        return call_tool_result::text("[ipybox] cancelled before it started", true);
    }
    cell_output_options output_options{
        static_cast<std::size_t>(max_chars),
        [this](const std::string& text) { return save_full_output(text); }, options_.workspace,
        arguments.at("images").get_ref<const std::string&>() != "paths"};

    // At least 1 ms (an interrupt must not overtake the code) and at most a year.
    const auto timeout = std::chrono::milliseconds(static_cast<long long>(
        std::clamp(timeout_seconds * 1000.0, 1.0, 365.0 * 24 * 3600 * 1000)));
    return drive_cell(executor_.stream(code, timeout), output_options, arguments, context);
}

call_tool_result server_tools::resume_cell(const json& arguments,
                                           const mcp::session::request_context& context) {
    auto cell = parked_.take(*context.request_state(), arguments);
    const auto& answer = context.input_responses().is_object()
                             ? context.input_responses().value("approval", json())
                             : json();
    // Without the answer the question is put again (the spec's advice), with a new state.
    if (answer.is_null()) return parked_.park(std::move(cell), arguments);
    approves(answer) ? cell.request.accept() : cell.request.reject("the user declined");
    return drive_cell(std::move(cell.stream), cell.output, arguments, context);
}

call_tool_result server_tools::drive_cell(code_execution_stream stream,
                                          const cell_output_options& output, const json& arguments,
                                          const mcp::session::request_context& context) {
    // The cell is now the running one: a cancellation from the client interrupts it.
    auto cancelled =
        context.cancellation().on_cancel([this](const std::string&) { executor_.cancel(); });
    if (context.cancellation().cancelled()) executor_.cancel();  // cancelled while queued

    std::shared_ptr<progress_ticker> progress;
    if (context.wants_progress()) {
        progress = progress_ticker::start(io_, context, std::chrono::seconds(1));
    }
    const auto stop_progress = [&] {
        if (progress) progress->stop();
    };
    // How the cell ended is the stream's last step, a value: converted here into the answer.
    while (auto step = stream.next_step()) {
        if (auto* chunk = std::get_if<code_execution_chunk>(&*step)) {
            if (progress) progress->note_output(chunk->text);
        } else if (auto* request = std::get_if<approval_request>(&*step)) {
            if (decide(*request, context)) {
                stop_progress();
                return parked_.park(waiting_cell{std::move(stream), *request, output}, arguments);
            }
        } else if (auto* result = std::get_if<code_execution_result>(&*step)) {
            stop_progress();
            return cell_result(*result, output);
        } else {
            stop_progress();
            return cell_error(std::get<code_execution_failure>(*step), output);
        }
    }
    stop_progress();
    return call_tool_result::text("");
}

install_outcome server_tools::install_spec(const std::string& spec, bool for_user) {
    install_request request;
    request.python = executor_.python();
    request.spec = spec;
    request.workspace = options_.workspace;
    if (for_user) {
        const auto user_site = user_site_packages(options_.library_roots);
        request.target_root = user_site.parent_path();
        request.relative_target = user_site.filename();
    } else {
        request.relative_target = std::filesystem::path(".ipybox") / "site-packages";
    }
    request.host_environment = options_.host_environment;
    request.timeout = options_.install_timeout;
    request.refuse_local_paths = options_.sandbox.has_value();
    return install_with_pip(request);
}

call_tool_result server_tools::install_package(const json& arguments,
                                               const mcp::session::request_context&) {
    const auto& spec = arguments.at("package_name").get_ref<const std::string&>();
    const auto& scope = arguments.at("scope").get_ref<const std::string&>();
    if (scope == "user" && user_site_packages(options_.library_roots).empty()) {
        throw argument_error(
            "scope \"user\" needs a user library, and ipybox was started without one (no "
            "HOME, XDG_DATA_HOME or --library)");
    }
    executor_.start();  // the interpreter pip runs with is the kernel's
    const auto outcome = install_spec(spec, scope == "user");
    if (!outcome.succeeded) return call_tool_result::text(outcome.output, true);
    // Make a new top-level package visible to the running kernel at once.
    executor_.execute("__import__('importlib').invalidate_caches()");
    return call_tool_result::text(outcome.output);
}

call_tool_result server_tools::reset(const json&, const mcp::session::request_context&) {
    parked_.abandon("the kernel was reset");
    executor_.reset();
    send_flags_to_kernel(update_action_pins());
    return call_tool_result::text(
        "The kernel was reset: variables, imports and definitions are cleared. Workspace "
        "files, installed packages, mcptools/ and registered servers are kept.");
}

}  // namespace ipybox::app
