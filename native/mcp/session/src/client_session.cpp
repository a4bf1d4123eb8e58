#include "ipybox/mcp/session/client_session.hpp"

#include <mutex>
#include <set>

#include "ipybox/core/log.hpp"
#include "ipybox/core/version.hpp"
#include "ipybox/mcp/session/protocol_version.hpp"

namespace ipybox::mcp::session {
namespace {

// Follows nextCursor until the server stops sending one.
struct list_tools_operation : std::enable_shared_from_this<list_tools_operation> {
    static constexpr std::size_t max_pages = 10000;

    std::weak_ptr<jsonrpc::dispatcher> dispatcher;  // weak: the session owns it
    std::chrono::milliseconds timeout{0};
    jsonrpc::completion<std::vector<tool_descriptor>> done;
    std::vector<tool_descriptor> tools;
    std::set<std::string> cursors;

    void fetch(const std::optional<std::string>& cursor) {
        json params = json::object();
        if (cursor) params["cursor"] = *cursor;
        jsonrpc::request_options options;
        options.timeout = timeout;
        const auto channel = dispatcher.lock();
        if (!channel) {
            done(std::make_exception_ptr(
                     jsonrpc::connection_closed("tools/list", "the client session was destroyed")),
                 {});
            return;
        }
        channel->send_request("tools/list", std::move(params), std::move(options),
                              [self = shared_from_this()](std::exception_ptr error, json result) {
                                  self->on_page(error, std::move(result));
                              });
    }

    void on_page(std::exception_ptr error, json result) {
        if (error) {
            done(error, {});
            return;
        }
        try {
            const auto list = result.is_object() ? result.find("tools") : result.end();
            if (!result.is_object() || list == result.end() || !list->is_array()) {
                throw protocol_error("tools/list", "the result has no \"tools\" array");
            }
            for (const auto& entry : *list) tools.push_back(tool_descriptor::from_json(entry));
            const auto next = result.find("nextCursor");
            if (next != result.end() && next->is_string() && !next->get<std::string>().empty()) {
                const auto cursor = next->get<std::string>();
                if (!cursors.insert(cursor).second || cursors.size() > max_pages) {
                    throw protocol_error("tools/list", "the server repeats cursor '" + cursor +
                                                           "'; pagination would never end");
                }
                fetch(cursor);
                return;
            }
        } catch (...) {
            done(std::current_exception(), {});
            return;
        }
        done(nullptr, std::move(tools));
    }
};

}  // namespace

struct client_session::state {
    enum class phase { created, initializing, ready, closed };

    std::shared_ptr<transport::transport> channel;
    std::shared_ptr<jsonrpc::dispatcher> dispatcher;
    client_options options;
    std::shared_ptr<spdlog::logger> log;

    mutable std::mutex mutex;
    phase current = phase::created;
    server_description server;
};

std::shared_ptr<client_session> client_session::create(
    boost::asio::io_context& io, std::shared_ptr<transport::transport> channel,
    client_options options) {
    return std::shared_ptr<client_session>(
        new client_session(io, std::move(channel), std::move(options)));
}

client_session::client_session(boost::asio::io_context& io,
                               std::shared_ptr<transport::transport> channel,
                               client_options options)
    : io_(io), state_(std::make_unique<state>()) {
    if (!channel) throw std::invalid_argument("client_session needs a transport");
    if (options.client_info.version.empty()) options.client_info.version = core::version;
    state_->channel = std::move(channel);
    state_->options = std::move(options);
    state_->log = core::logger("mcp");
    jsonrpc::dispatcher_options dispatch;
    dispatch.default_timeout = state_->options.request_timeout;
    dispatch.name = state_->options.name;
    state_->dispatcher = jsonrpc::dispatcher::create(
        io, [channel = state_->channel](jsonrpc::message msg) { channel->send(std::move(msg)); },
        std::move(dispatch));
}

client_session::~client_session() {
    state_->dispatcher->close("the client session was closed");
    state_->channel->close();
}

void client_session::start_initialize(jsonrpc::completion<server_description> done) {
    {
        std::lock_guard lock(state_->mutex);
        if (state_->current != state::phase::created) {
            throw std::logic_error("client_session::initialize() called twice");
        }
        state_->current = state::phase::initializing;
    }
    std::weak_ptr<jsonrpc::dispatcher> weak_dispatcher = state_->dispatcher;
    std::weak_ptr<client_session> weak_self = shared_from_this();
    try {
        state_->channel->start(
            [weak_dispatcher](jsonrpc::decode_result frame) {
                if (auto dispatcher = weak_dispatcher.lock()) dispatcher->receive(std::move(frame));
            },
            [weak_self](const transport::close_info& info) {
                if (auto self = weak_self.lock()) self->on_transport_closed(info);
            });
    } catch (const std::exception& error) {
        {
            std::lock_guard lock(state_->mutex);
            state_->current = state::phase::closed;
        }
        state_->dispatcher->close(error.what());
        done(std::make_exception_ptr(jsonrpc::connection_closed("initialize", error.what())), {});
        return;
    }
    const json params = {{"protocolVersion", std::string(latest_protocol_version)},
                         {"capabilities", state_->options.capabilities},
                         {"clientInfo", state_->options.client_info.to_json()}};
    jsonrpc::request_options options;
    options.timeout = state_->options.connect_timeout;
    state_->dispatcher->send_request(
        "initialize", params, std::move(options),
        // Weak: a pending request must not keep its own session alive (an owner that drops the
        // session gets its pending operations failed by the destructor instead).
        [weak = weak_from_this(), done](std::exception_ptr error, json result) {
            const auto self = weak.lock();
            if (!self) {
                done(error ? error
                           : std::make_exception_ptr(jsonrpc::connection_closed(
                                 "initialize", "the client session was destroyed")),
                     {});
                return;
            }
            auto fail = [&](std::exception_ptr failure) {
                self->close();
                done(failure, {});
            };
            if (error) return fail(error);
            server_description server;
            const auto version = result.is_object() ? result.find("protocolVersion") : result.end();
            if (!result.is_object() || version == result.end() || !version->is_string()) {
                return fail(std::make_exception_ptr(
                    protocol_error("initialize", "the result has no string \"protocolVersion\"")));
            }
            server.protocol_version = version->get<std::string>();
            if (!is_supported_protocol_version(server.protocol_version)) {
                return fail(
                    std::make_exception_ptr(unsupported_protocol_version(server.protocol_version)));
            }
            server.server_info = implementation_info::from_json(result.value("serverInfo", json()));
            const auto capabilities = result.find("capabilities");
            if (capabilities != result.end() && capabilities->is_object()) {
                server.capabilities = *capabilities;
            }
            server.instructions = result.value("instructions", std::string());
            {
                std::lock_guard lock(self->state_->mutex);
                if (self->state_->current == state::phase::closed) {
                    done(std::make_exception_ptr(jsonrpc::connection_closed(
                             "initialize", "the session was closed during initialize")),
                         {});
                    return;
                }
                self->state_->current = state::phase::ready;
                self->state_->server = server;
            }
            self->state_->channel->set_protocol_version(server.protocol_version);
            self->state_->dispatcher->send_notification("notifications/initialized");
            self->state_->log->info("{}: connected to {} {} (MCP {})", self->state_->options.name,
                                    server.server_info.name, server.server_info.version,
                                    server.protocol_version);
            done(nullptr, std::move(server));
        });
}

void client_session::start_list_tools(jsonrpc::completion<std::vector<tool_descriptor>> done) {
    require_initialized("tools/list");
    auto operation = std::make_shared<list_tools_operation>();
    operation->dispatcher = state_->dispatcher;
    operation->timeout = state_->options.request_timeout;
    operation->done = std::move(done);
    operation->fetch(std::nullopt);
}

void client_session::start_call_tool(std::string name, json arguments, call_options options,
                                     jsonrpc::completion<call_tool_result> done) {
    require_initialized("tools/call");
    if (arguments.is_null()) arguments = json::object();
    if (!arguments.is_object()) {
        throw std::invalid_argument("tool arguments must be a JSON object (tool '" + name + "')");
    }
    jsonrpc::request_options request;
    request.timeout = options.timeout.value_or(state_->options.request_timeout);
    request.cancellation = std::move(options.cancellation);
    request.on_progress = std::move(options.on_progress);
    request.progress_resets_timeout = options.progress_resets_timeout;
    state_->dispatcher->send_request(
        "tools/call", {{"name", name}, {"arguments", std::move(arguments)}}, std::move(request),
        [done = std::move(done)](std::exception_ptr error, json result) {
            if (error) return done(error, {});
            call_tool_result parsed;
            try {
                parsed = call_tool_result::from_json(result);
            } catch (...) {
                return done(std::current_exception(), {});
            }
            done(nullptr, std::move(parsed));
        });
}

void client_session::start_ping(jsonrpc::completion<std::chrono::microseconds> done) {
    require_initialized("ping");
    const auto started = std::chrono::steady_clock::now();
    state_->dispatcher->send_request(
        "ping", nullptr, {}, [done = std::move(done), started](std::exception_ptr error, json) {
            done(error, std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::steady_clock::now() - started));
        });
}

void client_session::start_request(const std::string& method, json params,
                                   jsonrpc::request_options options,
                                   jsonrpc::completion<json> done) {
    require_initialized(method);
    state_->dispatcher->send_request(method, std::move(params), std::move(options),
                                     std::move(done));
}

void client_session::notify(const std::string& method, json params) {
    state_->dispatcher->send_notification(method, std::move(params));
}

void client_session::on_request(const std::string& method, jsonrpc::request_handler handler) {
    state_->dispatcher->on_request(method, std::move(handler));
}

void client_session::on_notification(const std::string& method,
                                     jsonrpc::notification_handler handler) {
    state_->dispatcher->on_notification(method, std::move(handler));
}

void client_session::close() {
    state_->dispatcher->close("the client closed the session");
    state_->channel->close();
}

bool client_session::is_initialized() const {
    std::lock_guard lock(state_->mutex);
    return state_->current == state::phase::ready;
}

bool client_session::is_closed() const {
    std::lock_guard lock(state_->mutex);
    return state_->current == state::phase::closed;
}

server_description client_session::server() const {
    std::lock_guard lock(state_->mutex);
    if (state_->server.protocol_version.empty()) {
        throw std::logic_error("client_session::server() before initialize() completed");
    }
    return state_->server;
}

void client_session::require_initialized(const std::string& method) const {
    std::lock_guard lock(state_->mutex);
    if (state_->current == state::phase::created || state_->current == state::phase::initializing) {
        throw std::logic_error("'" + method + "' requested before initialize() completed");
    }
}

void client_session::on_transport_closed(const transport::close_info& info) {
    {
        std::lock_guard lock(state_->mutex);
        state_->current = state::phase::closed;
    }
    state_->dispatcher->close(info.reason);
    if (!state_->options.on_closed) return;
    try {
        state_->options.on_closed(info);
    } catch (const std::exception& error) {
        state_->log->error("{}: the on_closed callback threw: {}", state_->options.name,
                           error.what());
    }
}

}  // namespace ipybox::mcp::session
