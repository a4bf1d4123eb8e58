#include "mcp_client_pool.hpp"

#include <thread>

#include "ipybox/core/log.hpp"
#include "ipybox/mcp/jsonrpc/completion.hpp"
#include "ipybox/workspace/placeholders.hpp"
#include "transport_factory.hpp"

namespace ipybox::app {

mcp_client_pool::mcp_client_pool(boost::asio::io_context& io, pool_options options)
    : io_(io), options_(std::move(options)) {
    options_.deadlines.connect = options_.connect_timeout;
    options_.deadlines.call = options_.call_timeout;
}

mcp_client_pool::~mcp_client_pool() {
    close_sessions();
}

void mcp_client_pool::register_server(const std::string& name, nlohmann::json params) {
    validate_server_params(params);
    auto fresh = std::make_shared<entry>();
    fresh->deadlines = deadlines_for(params, options_.deadlines);
    fresh->params = std::move(params);
    std::shared_ptr<mcp::session::client_session> previous;
    {
        std::lock_guard lock(mutex_);
        auto& slot = entries_[name];
        if (slot) previous = std::move(slot->session);
        slot = std::move(fresh);
    }
    if (previous) previous->close();
}

std::vector<std::string> mcp_client_pool::server_names() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> names;
    for (const auto& [name, slot] : entries_) names.push_back(name);
    return names;
}

bool mcp_client_pool::has_server(const std::string& name) const {
    return find(name) != nullptr;
}

std::optional<nlohmann::json> mcp_client_pool::params_of(const std::string& name) const {
    const auto slot = find(name);
    if (!slot) return std::nullopt;
    return slot->params;
}

void mcp_client_pool::unregister_server(const std::string& name) {
    std::shared_ptr<mcp::session::client_session> session;
    {
        std::lock_guard lock(mutex_);
        const auto it = entries_.find(name);
        if (it == entries_.end()) return;
        session = std::move(it->second->session);
        entries_.erase(it);
    }
    if (session) session->close();
}

std::shared_ptr<mcp_client_pool::entry> mcp_client_pool::find(const std::string& name) const {
    std::lock_guard lock(mutex_);
    const auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : it->second;
}

std::shared_ptr<mcp::session::client_session> mcp_client_pool::session_for(
    const std::string& name, const mcp::jsonrpc::cancellation_token& cancellation) {
    const auto slot = find(name);
    if (!slot) throw unknown_server("no MCP server named '" + name + "' is registered");
    std::lock_guard start_lock(slot->start_mutex);
    {
        std::lock_guard lock(mutex_);
        if (slot->session && !slot->session->is_closed()) return slot->session;
    }
    if (slot->session) {
        core::logger("app")->info("MCP server '{}' is gone; starting it again", name);
    }
    // Placeholders are filled here, host-side, on every start: generated code and the kernel
    // only ever see "${VAR}", and each filled value is redacted from all ipybox emits.
    const auto params = workspace::substitute_placeholders(slot->params, options_.variables,
                                                           core::process_redactor());
    const auto& deadlines = slot->deadlines;
    auto channel = make_transport(io_, name, params, options_.default_cwd,
                                  options_.inherited_environment, deadlines.close);
    mcp::session::client_options client;
    client.name = name;
    client.connect_timeout = deadlines.connect;
    client.request_timeout = deadlines.request;
    client.max_request_duration = deadlines.max_request;
    client.call_timeout = deadlines.call;
    client.max_call_duration = deadlines.max_call;
    auto session = mcp::session::client_session::create(io_, std::move(channel), client);
    {
        std::lock_guard lock(mutex_);
        slot->starting = session;  // close_sessions() can end it while it starts
    }
    struct forget_starting {
        mcp_client_pool& pool;
        entry& slot;
        ~forget_starting() {
            std::lock_guard lock(pool.mutex_);
            slot.starting.reset();
        }
    } forget{*this, *slot};
    mcp::jsonrpc::wait_for<mcp::session::server_description>(
        [&](auto done) { session->initialize(cancellation, done); });
    std::lock_guard lock(mutex_);
    slot->session = session;
    return session;
}

mcp::session::call_tool_result mcp_client_pool::call_tool(const std::string& server,
                                                          const std::string& tool,
                                                          const nlohmann::json& arguments) {
    auto cancellation = std::make_shared<mcp::jsonrpc::cancellation_source>();
    {
        std::lock_guard lock(mutex_);
        calls_.insert(cancellation);
    }
    struct forget {
        mcp_client_pool& pool;
        std::shared_ptr<mcp::jsonrpc::cancellation_source> call;
        ~forget() {
            std::lock_guard lock(pool.mutex_);
            pool.calls_.erase(call);
        }
    } forget_on_return{*this, cancellation};
    // Inside the registration: cancel_calls() also ends a start-up this call waits for.
    auto session = session_for(server, cancellation->token());
    mcp::session::call_options call;
    call.progress_resets_timeout = true;
    call.cancellation = cancellation->token();
    return mcp::jsonrpc::wait_for<mcp::session::call_tool_result>(
        [&](auto done) { session->call_tool(tool, arguments, std::move(call), done); });
}

void mcp_client_pool::cancel_calls(const std::string& reason) {
    std::set<std::shared_ptr<mcp::jsonrpc::cancellation_source>> calls;
    {
        std::lock_guard lock(mutex_);
        calls = calls_;
    }
    for (const auto& call : calls) call->cancel(reason);
}

std::vector<mcp::session::tool_descriptor> mcp_client_pool::list_tools(
    const std::string& server, const mcp::jsonrpc::cancellation_token& cancellation) {
    auto session = session_for(server, cancellation);
    return mcp::jsonrpc::wait_for<std::vector<mcp::session::tool_descriptor>>(
        [&](auto done) { session->list_tools(cancellation, done); });
}

void mcp_client_pool::close_sessions() {
    std::vector<std::shared_ptr<mcp::session::client_session>> sessions;
    {
        std::lock_guard lock(mutex_);
        for (auto& [name, slot] : entries_) {
            if (slot->session) sessions.push_back(std::move(slot->session));
            if (slot->starting) sessions.push_back(slot->starting);
        }
    }
    for (auto& session : sessions) session->close();
    // Let each server exit in an orderly way (stdin closed, then signals) before the runtime
    // that drives the shutdown goes away; bounded by the transports' own grace periods.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(6);
    for (auto& session : sessions) {
        while (!session->is_closed() && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }
}

}  // namespace ipybox::app
