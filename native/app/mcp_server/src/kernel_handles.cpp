#include "kernel_handles.hpp"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <future>

#include "ipybox/core/log.hpp"
#include "ipybox/core/random.hpp"
#include "ipybox/sandbox/srt_launcher.hpp"
#include "ipybox/workspace/directory.hpp"
#include "kernel_request.hpp"
#include "server_tool_support.hpp"

namespace ipybox::app {
namespace {

namespace asio = boost::asio;
using detail::argument_error;
using mcp::session::call_tool_result;
using nlohmann::json;
using clock = std::chrono::steady_clock;

// 128 random bits.
std::string new_kernel_id() {
    return core::random_hex(16);
}

long long whole_seconds(std::chrono::milliseconds span) {
    return std::chrono::duration_cast<std::chrono::seconds>(span).count();
}

std::string unknown_id_message(const std::string& id, std::chrono::milliseconds ttl) {
    return "unknown kernel_id '" + id + "': no kernel of yours has it (it was destroyed, was " +
           "idle for more than " + std::to_string(whole_seconds(ttl)) +
           " s, or never existed). Call create_kernel for a new one; list_kernels shows yours.";
}

owner_caps caps_of(const client_identity& who) {
    return {who.limits.max_kernels, who.limits.memory_bytes, who.limits.cpu_seconds};
}

kernel_cost cost_of(const process::resource_limits& limits) {
    return {limits.memory_bytes, limits.cpu_seconds};
}

std::string relative_text(const std::filesystem::path& path) {
    return path.empty() ? "." : path.generic_string();
}

}  // namespace

kernel_handles::kernel_handles(asio::io_context& io, kernel_handles_settings settings)
    : io_(io), settings_(std::move(settings)), table_(settings_.caps, new_kernel_id), reaper_(io) {
    if (settings_.share_template) {
        shared_template_ = std::make_shared<kernel::shared_kernel_template>();
    }
    asio::post(io_, [this] { schedule_reaping(); });  // the timer is the loop's
}

kernel_handles::~kernel_handles() {
    stop();
}

std::shared_ptr<kernel_unit> kernel_handles::make_unit(mcp_server_options options,
                                                       std::optional<std::filesystem::path> srt) {
    return std::make_shared<kernel_unit>(io_, std::move(options), std::move(srt), settings_.policy,
                                         shared_template_);
}

void kernel_handles::start(const std::string& principal) {
    const auto held = table_.acquire_implicit(
        principal, {}, cost_of(settings_.options.limits), clock::now(), [&] {
            handle_table<kernel_unit>::details about{".", settings_.options.sandbox.has_value(),
                                                     settings_.implicit_kernels_expire};
            return std::make_pair(make_unit(settings_.options, settings_.srt), about);
        });
    table_.release(held, clock::now());
}

std::shared_ptr<kernel_unit> kernel_handles::acquire(const json& arguments,
                                                     const client_identity& who) {
    if (stopped_) throw std::runtime_error("ipybox is shutting down");
    std::string id;
    if (arguments.is_object() && arguments.contains("kernel_id") &&
        !arguments["kernel_id"].is_null()) {
        const auto& given = arguments["kernel_id"];
        if (!given.is_string()) {
            throw std::invalid_argument("\"kernel_id\" must be a string from create_kernel, not " +
                                        std::string(given.type_name()));
        }
        id = given.get<std::string>();
        if (id.empty()) throw std::invalid_argument("\"kernel_id\" is empty");
    }
    if (!id.empty()) {
        auto kernel = table_.acquire(id, who.principal, clock::now());
        if (!kernel) throw unknown_kernel_error(unknown_id_message(id, caps().ttl));
        return kernel;
    }
    return table_.acquire_implicit(
        who.principal, caps_of(who), cost_of(settings_.options.limits), clock::now(), [&] {
            handle_table<kernel_unit>::details about{".", settings_.options.sandbox.has_value(),
                                                     settings_.implicit_kernels_expire};
            core::logger("server")->info("starting the implicit kernel of principal '{}'",
                                         who.principal);
            return std::make_pair(make_unit(settings_.options, settings_.srt), about);
        });
}

void kernel_handles::release(const std::shared_ptr<kernel_unit>& kernel) {
    table_.release(kernel, clock::now());
}

void kernel_handles::begin_cell(const client_identity& who) {
    table_.begin_cell(who.principal, who.limits.max_concurrent_cells);
}

void kernel_handles::end_cell(const client_identity& who) {
    table_.end_cell(who.principal);
}

call_tool_result kernel_handles::create(const json& arguments, const client_identity& who) {
    const auto& server = settings_.options;
    const auto request = read_kernel_request(arguments, server.limits);
    auto options = server;
    options.limits = request.limits;
    // One kernel, started cold; a spare and the template it is forked from only when asked.
    options.keep_spare_kernel = request.fast_reset;
    auto srt = settings_.srt;
    const bool sandboxed = request.sandbox.value_or(server.sandbox.has_value());
    if (!sandboxed && server.sandbox) {
        throw argument_error("\"sandbox\": this server runs every kernel sandboxed (--sandbox)");
    }
    if (sandboxed && !server.sandbox) {
        if (!server.sandbox_on_request) {
            throw argument_error("\"sandbox\": this server cannot sandbox kernels");
        }
        options.sandbox = server.sandbox_on_request;
        try {  // fail closed: without the sandbox runtime there is no kernel
            srt = sandbox::find_srt(options.sandbox->srt, server.host_environment,
                                    options.sandbox->srt_fallbacks, {server.workspace});
        } catch (const sandbox::sandbox_unavailable& e) {
            throw std::runtime_error(std::string("cannot sandbox the kernel: ") + e.what());
        }
    }
    // The caps first: a refused kernel makes nothing, not even its folder.
    const auto cost = cost_of(options.limits);
    table_.reserve(who.principal, caps_of(who), cost);
    std::shared_ptr<kernel_unit> kernel;
    try {
        if (!request.workspace.empty()) {
            // Made through the server workspace's descriptor: a link on the way is refused, so
            // the kernel's folder is inside the server's workspace.
            workspace::directory::open_root(server.workspace).make_directories(request.workspace);
            options.workspace = server.workspace / request.workspace;
            options.registry_file = server.registry_file_for
                                        ? server.registry_file_for(options.workspace)
                                        : std::filesystem::path();
        }
        kernel = make_unit(options, srt);
        kernel->wait_started();
    } catch (...) {
        table_.unreserve(who.principal, cost);
        if (kernel) retire_later(kernel);
        throw;
    }
    const auto id = table_.add(who.principal, cost, kernel,
                               {relative_text(request.workspace), sandboxed, true}, clock::now());
    if (id.empty()) {  // the server stopped meanwhile
        kernel->retire();
        throw std::runtime_error("ipybox is shutting down");
    }
    core::logger("server")->info("principal '{}' created kernel {}… in {} ({} kernels)",
                                 who.principal, id.substr(0, 6), options.workspace.string(),
                                 table_.size());
    const auto ttl = whole_seconds(caps().ttl);
    auto result = call_tool_result::text(
        "kernel_id: " + id + "\nworkspace: " + relative_text(request.workspace) +
        "\nsandboxed: " + (sandboxed ? "yes" : "no") + "\nidle TTL: " + std::to_string(ttl) +
        " s\nPass kernel_id to execute_ipython_cell, install_package, register_mcp_server, "
        "search_tools and reset; destroy_kernel when done.");
    result.structured = json{{"kernel_id", id},
                             {"workspace", relative_text(request.workspace)},
                             {"sandboxed", sandboxed},
                             {"ttl_seconds", ttl}};
    return result;
}

call_tool_result kernel_handles::list(const client_identity& who) const {
    auto listed = table_.list(who.principal, clock::now());
    std::sort(listed.begin(), listed.end(),
              [](const auto& a, const auto& b) { return a.id < b.id; });
    json kernels = json::array();
    std::string text;
    for (const auto& item : listed) {
        json entry{{"kernel_id", item.id.empty() ? json() : json(item.id)},
                   {"implicit", item.id.empty()},
                   {"workspace", item.workspace},
                   {"sandboxed", item.sandboxed},
                   {"idle_seconds", whole_seconds(item.idle)},
                   {"calls", item.calls}};
        if (item.expires_in.count() > 0)
            entry["expires_in_seconds"] = whole_seconds(item.expires_in);
        text += (item.id.empty() ? std::string("(implicit, used without kernel_id)") : item.id) +
                "  workspace " + item.workspace + (item.sandboxed ? ", sandboxed" : "") +
                ", idle " + std::to_string(whole_seconds(item.idle)) + " s\n";
        kernels.push_back(std::move(entry));
    }
    if (text.empty()) text = "no kernels; create_kernel makes one\n";
    auto result = call_tool_result::text(text);
    result.structured = json{{"kernels", std::move(kernels)}};
    return result;
}

call_tool_result kernel_handles::destroy(const json& arguments, const client_identity& who) {
    const auto& id = arguments.at("kernel_id").get_ref<const std::string&>();
    auto kernel = table_.remove(id, who.principal);
    if (!kernel) throw unknown_kernel_error(unknown_id_message(id, caps().ttl));
    kernel->retire();  // every process of it ends before the answer
    core::logger("server")->info("principal '{}' destroyed kernel {}…", who.principal,
                                 id.substr(0, 6));
    return call_tool_result::text("kernel " + id + " destroyed");
}

void kernel_handles::schedule_reaping() {
    const auto tick = std::clamp<std::chrono::milliseconds>(
        caps().ttl / 4, std::chrono::milliseconds(100), std::chrono::seconds(10));
    reaper_.expires_after(tick);
    reaper_.async_wait([this](const boost::system::error_code& error) {
        if (error || stopped_) return;
        for (auto& kernel : table_.take_expired(clock::now())) {
            core::logger("server")->info("a kernel idle for {} s is stopped",
                                         whole_seconds(caps().ttl));
            retire_later(kernel);
        }
        schedule_reaping();
    });
}

void kernel_handles::retire_later(const std::shared_ptr<kernel_unit>& kernel) {
    try {
        retirements_.post([kernel] { kernel->retire(); });
    } catch (const std::logic_error&) {  // stopped: nobody will wait for it
        kernel->retire();
    }
}

void kernel_handles::stop() {
    // On the loop (which runs until the server's runtime ends), where acquire() makes implicit
    // kernels: none is made after this, and the timer is the loop's.
    std::promise<std::vector<std::shared_ptr<kernel_unit>>> taken;
    asio::post(io_, [this, &taken] {
        stopped_ = true;
        reaper_.cancel();
        taken.set_value(table_.take_all());
    });
    for (auto& kernel : taken.get_future().get()) retire_later(kernel);
    retirements_.join();
    if (shared_template_) shared_template_->stop();
}

}  // namespace ipybox::app
