#include "mcp_client_pool.hpp"

#include <boost/asio/post.hpp>
#include <thread>

#include "ipybox/core/log.hpp"
#include "ipybox/mcp/jsonrpc/completion.hpp"
#include "ipybox/workspace/placeholders.hpp"
#include "transport_factory.hpp"

namespace ipybox::app {

mcp_client_pool::mcp_client_pool(boost::asio::io_context& io, pool_options options)
    : io_(io), options_(std::move(options)), shared_(std::make_shared<shared_state>()) {
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
        std::lock_guard lock(shared_->mutex);
        auto& slot = shared_->entries[name];
        if (slot) previous = std::move(slot->session);
        slot = std::move(fresh);
    }
    if (previous) previous->close();
}

std::vector<std::string> mcp_client_pool::server_names() const {
    std::lock_guard lock(shared_->mutex);
    std::vector<std::string> names;
    for (const auto& [name, slot] : shared_->entries) names.push_back(name);
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
        std::lock_guard lock(shared_->mutex);
        const auto it = shared_->entries.find(name);
        if (it == shared_->entries.end()) return;
        session = std::move(it->second->session);
        shared_->entries.erase(it);
    }
    if (session) session->close();
}

std::shared_ptr<mcp_client_pool::entry> mcp_client_pool::find(const std::string& name) const {
    std::lock_guard lock(shared_->mutex);
    const auto it = shared_->entries.find(name);
    return it == shared_->entries.end() ? nullptr : it->second;
}

void mcp_client_pool::refuse_loop_thread(const char* operation) const {
    if (io_.get_executor().running_in_this_thread()) {
        throw std::logic_error(std::string("mcp_client_pool::") + operation +
                               " blocks, and was called on the loop's own thread, which would "
                               "wait for itself; use async_" +
                               operation + " there");
    }
}

void mcp_client_pool::async_session_for(const std::string& name,
                                        const mcp::jsonrpc::cancellation_token& cancellation,
                                        session_handler done, bool for_listing) {
    // Every way out goes through the loop, never inside this call (as the sessions do).
    const auto fail = [this, &done](const std::exception_ptr& error) {
        boost::asio::post(io_, [done = std::move(done), error] { done(error, nullptr); });
    };
    const auto slot = find(name);
    if (!slot) {
        return fail(std::make_exception_ptr(
            unknown_server("no MCP server named '" + name + "' is registered")));
    }
    session_ptr session;
    {
        std::lock_guard lock(shared_->mutex);
        if (slot->session && !slot->session->is_closed()) {
            boost::asio::post(
                io_, [done = std::move(done), live = slot->session] { done(nullptr, live); });
            return;
        }
        if (slot->starting) {  // another call is starting it: wait for that start
            slot->waiting.push_back(std::move(done));
            return;
        }
        if (slot->session) {
            core::logger("app")->info("MCP server '{}' is gone; starting it again", name);
        }
        try {
            // Placeholders are filled here, host-side, on every start: generated code and the
            // kernel only ever see "${VAR}", and each filled value is redacted from all ipybox
            // emits.
            const auto params = workspace::substitute_placeholders(slot->params, options_.variables,
                                                                   core::process_redactor());
            const auto& deadlines = slot->deadlines;
            auto channel = make_transport(io_, name, params, options_.default_cwd,
                                          options_.inherited_environment, deadlines.close);
            mcp::session::client_options client;
            client.name = name;
            client.connect_timeout =
                for_listing ? std::min(deadlines.connect, deadlines.max_list) : deadlines.connect;
            client.request_timeout = deadlines.request;
            client.max_list_duration = deadlines.max_list;
            client.max_list_setting =
                "\"timeouts\": {\"max_list\": <seconds>} in the parameters of MCP server '" + name +
                "'";
            client.max_request_duration = deadlines.max_request;
            client.call_timeout = deadlines.call;
            client.max_call_duration = deadlines.max_call;
            session = mcp::session::client_session::create(io_, std::move(channel), client);
        } catch (...) {
            return fail(std::current_exception());
        }
        slot->starting = session;  // close_sessions() can end it while it starts
        slot->waiting.push_back(std::move(done));
    }
    // Every call that arrived while the server started learns how the start went.
    const auto settle = [shared = shared_, slot, session](const std::exception_ptr& error) {
        std::vector<session_handler> waiting;
        {
            std::lock_guard lock(shared->mutex);
            slot->starting.reset();
            if (!error) slot->session = session;
            waiting = std::exchange(slot->waiting, {});
        }
        for (auto& waiter : waiting) waiter(error, error ? nullptr : session);
    };
    try {
        session->initialize(cancellation,
                            [settle](const std::exception_ptr& error,
                                     const mcp::session::server_description&) { settle(error); });
    } catch (...) {
        boost::asio::post(io_, [settle, error = std::current_exception()] { settle(error); });
    }
}

void mcp_client_pool::async_call_tool(const std::string& server, const std::string& tool,
                                      nlohmann::json arguments,
                                      handler<mcp::session::call_tool_result> done) {
    auto cancellation = std::make_shared<mcp::jsonrpc::cancellation_source>();
    {
        std::lock_guard lock(shared_->mutex);
        shared_->calls.insert(cancellation);
    }
    // Runs once, with the outcome: the call is no longer in flight.
    auto finish = [shared = shared_, cancellation, done = std::move(done)](
                      const std::exception_ptr& error, mcp::session::call_tool_result result) {
        {
            std::lock_guard lock(shared->mutex);
            shared->calls.erase(cancellation);
        }
        done(error, std::move(result));
    };
    // Inside the registration: cancel_calls() also ends a start-up this call waits for.
    async_session_for(
        server, cancellation->token(),
        [tool, arguments = std::move(arguments), cancellation, finish = std::move(finish)](
            const std::exception_ptr& error, const session_ptr& session) mutable {
            if (error) return finish(error, {});
            mcp::session::call_options call;
            call.progress_resets_timeout = true;
            call.cancellation = cancellation->token();
            try {
                session->call_tool(tool, arguments, std::move(call), std::move(finish));
            } catch (...) {  // a session closed since: a broken call order, not a hang
                finish(std::current_exception(), {});
            }
        });
}

void mcp_client_pool::async_list_tools(const std::string& server,
                                       const mcp::jsonrpc::cancellation_token& cancellation,
                                       handler<std::vector<mcp::session::tool_descriptor>> done) {
    // The listing's limit counts from here: a server that starts slowly has less left to list.
    mcp::session::list_options listing{cancellation, std::chrono::steady_clock::now()};
    async_session_for(
        server, cancellation,
        [listing = std::move(listing), done = std::move(done)](const std::exception_ptr& error,
                                                               const session_ptr& session) mutable {
            if (error) return done(error, {});
            try {
                session->list_tools(std::move(listing), std::move(done));
            } catch (...) {
                done(std::current_exception(), {});
            }
        },
        true);
}

mcp::session::call_tool_result mcp_client_pool::call_tool(const std::string& server,
                                                          const std::string& tool,
                                                          const nlohmann::json& arguments) {
    refuse_loop_thread("call_tool");
    return mcp::jsonrpc::wait_for<mcp::session::call_tool_result>(
        [&](auto done) { async_call_tool(server, tool, arguments, done); });
}

std::vector<mcp::session::tool_descriptor> mcp_client_pool::list_tools(
    const std::string& server, const mcp::jsonrpc::cancellation_token& cancellation) {
    refuse_loop_thread("list_tools");
    return mcp::jsonrpc::wait_for<std::vector<mcp::session::tool_descriptor>>(
        [&](auto done) { async_list_tools(server, cancellation, done); });
}

void mcp_client_pool::cancel_calls(const std::string& reason) {
    std::set<std::shared_ptr<mcp::jsonrpc::cancellation_source>> calls;
    {
        std::lock_guard lock(shared_->mutex);
        calls = shared_->calls;
    }
    for (const auto& call : calls) call->cancel(reason);
}

void mcp_client_pool::close_sessions() {
    std::vector<session_ptr> sessions;
    {
        std::lock_guard lock(shared_->mutex);
        for (auto& [name, slot] : shared_->entries) {
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
