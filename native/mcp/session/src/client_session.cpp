#include "ipybox/mcp/session/client_session.hpp"

#include <mutex>
#include <set>

#include "ipybox/core/log.hpp"
#include "ipybox/core/version.hpp"
#include "ipybox/mcp/session/protocol_version.hpp"
#include "protocol_core.hpp"

namespace ipybox::mcp::session {
namespace {

// The length of `value` as compact JSON text, escapes not counted (so at most what the server
// sent for it), without writing the text out.
std::size_t json_text_size(const json& value) {
    switch (value.type()) {
        case json::value_t::object: {
            std::size_t size = 2 + (value.empty() ? 0 : value.size() - 1);
            for (const auto& [key, member] : value.items()) {
                size += key.size() + 3 + json_text_size(member);
            }
            return size;
        }
        case json::value_t::array: {
            std::size_t size = 2 + (value.empty() ? 0 : value.size() - 1);
            for (const auto& element : value) size += json_text_size(element);
            return size;
        }
        case json::value_t::string:
            return value.get_ref<const std::string&>().size() + 2;
        default:
            return value.dump().size();
    }
}

// Follows nextCursor until the server stops sending one. Each page has the request timeout;
// all pages together share one total limit. A listing holds at most max_tools tools and
// max_tool_bytes of their JSON from at most max_pages pages, and a repeated cursor ends it: a
// server that pages forever fails the listing, and what it had sent is freed, instead of
// growing ipybox's memory without end. The byte bound is there because the others leave 1,000
// pages of up to 16 MiB each: 64 MiB is hundreds of times the tools of the largest servers
// known (a few hundred tools, well under 1 MiB of JSON), and 10,000 tools of 6 KiB each.
struct list_tools_operation : std::enable_shared_from_this<list_tools_operation> {
    static constexpr std::size_t max_pages = 1000;
    static constexpr std::size_t max_tools = 10000;
    static constexpr std::size_t max_tool_bytes = 64 * 1024 * 1024;

    std::weak_ptr<detail::protocol_core> protocol;  // weak: the session owns it
    std::string server;                             // its name, for the errors
    std::chrono::milliseconds timeout{0};
    std::chrono::milliseconds max_duration{0};  // of the whole listing; zero: none
    std::string max_duration_setting;           // how a user raises it, for its error
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    jsonrpc::cancellation_token cancellation;
    jsonrpc::completion<std::vector<tool_descriptor>> done;
    std::vector<tool_descriptor> tools;
    std::size_t tool_bytes = 0;  // json_text_size of the tools read so far
    std::set<std::string> cursors;

    void fetch(const std::optional<std::string>& cursor) {
        json params = json::object();
        if (cursor) params["cursor"] = *cursor;
        jsonrpc::request_options options;
        options.timeout = timeout;
        options.max_duration = max_duration;
        if (max_duration.count() > 0) {
            // What is left of the listing's limit; at least 1 ms (zero would mean "none").
            const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(
                std::chrono::steady_clock::now() - started);
            options.max_duration = std::max(max_duration - spent, std::chrono::milliseconds(1));
        }
        options.activity_resets_timeout = true;
        options.cancellation = cancellation;
        const auto core = protocol.lock();
        if (!core) {
            done(std::make_exception_ptr(
                     jsonrpc::connection_closed("tools/list", "the client session was destroyed")),
                 {});
            return;
        }
        core->send_request(
            "tools/list", std::move(params), std::move(options),
            [self = shared_from_this()](const std::exception_ptr& error, json result) {
                self->on_page(error, std::move(result));
            });
    }

    // Fails the listing and frees the tools read so far.
    void fail(const std::exception_ptr& error) {
        std::vector<tool_descriptor>().swap(tools);
        std::set<std::string>().swap(cursors);
        done(error, {});
    }

    // The listing's own total limit, when it is what ended `error`: a page's request_timeout
    // once the listing's time is spent (each page gets what is left of it). A page's silence
    // timeout, reached earlier, fails as it is.
    std::exception_ptr named_limit(const std::exception_ptr& error) const {
        if (max_duration.count() <= 0 ||
            std::chrono::steady_clock::now() < started + max_duration) {
            return error;
        }
        try {
            std::rethrow_exception(error);
        } catch (const jsonrpc::request_timeout&) {
        } catch (...) {
            return error;
        }
        return std::make_exception_ptr(jsonrpc::request_timeout(
            "tools/list", max_duration,
            "MCP server '" + server + "' did not finish listing its tools within the listing's " +
                "total limit of " + std::to_string(max_duration.count()) +
                " ms (tools/list, page " + std::to_string(cursors.size() + 1) + ", " +
                std::to_string(tools.size()) +
                " tools read so far); the request was cancelled. If the server really needs "
                "longer to list its tools, raise " +
                max_duration_setting));
    }

    void on_page(const std::exception_ptr& error, json result) {
        if (error) {
            fail(named_limit(error));
            return;
        }
        try {
            const auto list = result.is_object() ? result.find("tools") : result.end();
            if (!result.is_object() || list == result.end() || !list->is_array()) {
                throw protocol_error("tools/list", "the result has no \"tools\" array");
            }
            if (list->size() > max_tools - tools.size()) {
                throw protocol_error(
                    "tools/list",
                    "stopped after " + std::to_string(cursors.size() + 1) + " pages: MCP server '" +
                        server + "' lists more than " + std::to_string(max_tools) +
                        " tools, and ipybox reads at most " + std::to_string(max_tools) + " tools");
            }
            for (const auto& entry : *list) {
                const auto size = json_text_size(entry);
                if (size > max_tool_bytes - tool_bytes) {
                    throw protocol_error("tools/list",
                                         "stopped after " + std::to_string(cursors.size() + 1) +
                                             " pages: the tools of MCP server '" + server +
                                             "' take more than 64 MiB of JSON (" +
                                             std::to_string(max_tool_bytes) +
                                             " bytes), and ipybox reads at most that much");
                }
                tool_bytes += size;
                tools.push_back(tool_descriptor::from_json(entry));
            }
            const auto next = result.find("nextCursor");
            if (next != result.end() && next->is_string() && !next->get<std::string>().empty()) {
                const auto cursor = next->get<std::string>();
                if (cursors.size() + 1 >= max_pages) {
                    throw protocol_error("tools/list",
                                         "stopped after " + std::to_string(max_pages) +
                                             " pages: MCP server '" + server +
                                             "' still sends a next cursor, and "
                                             "ipybox reads at most " +
                                             std::to_string(max_pages) + " pages of tools");
                }
                if (!cursors.insert(cursor).second) {
                    throw protocol_error(
                        "tools/list", "MCP server '" + server + "' repeats cursor '" +
                                          cursor.substr(0, 100) + "'; pagination would never end");
                }
                fetch(cursor);
                return;
            }
        } catch (...) {
            fail(std::current_exception());
            return;
        }
        done(nullptr, std::move(tools));
    }
};

// What the server said in its initialize result; throws protocol_error or
// unsupported_protocol_version when it cannot be used.
server_description read_initialize_result(const json& result) {
    server_description server;
    const auto version = result.is_object() ? result.find("protocolVersion") : result.end();
    if (!result.is_object() || version == result.end() || !version->is_string()) {
        throw protocol_error("initialize", "the result has no string \"protocolVersion\"");
    }
    server.protocol_version = version->get<std::string>();
    if (!is_supported_protocol_version(server.protocol_version)) {
        throw unsupported_protocol_version(server.protocol_version);
    }
    server.server_info = implementation_info::from_json(result.value("serverInfo", json()));
    const auto capabilities = result.find("capabilities");
    if (capabilities != result.end() && capabilities->is_object()) {
        server.capabilities = *capabilities;
    }
    server.instructions = result.value("instructions", std::string());
    return server;
}

}  // namespace

struct client_session::state {
    std::shared_ptr<detail::protocol_core> protocol;
    client_options options;

    mutable std::mutex mutex;
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
    if (options.client_info.version.empty()) options.client_info.version = core::version;
    state_->options = std::move(options);
    auto protocol =
        detail::protocol_options_for(detail::sender::client, state_->options, spdlog::level::debug);
    protocol.max_request_duration = state_->options.max_request_duration;
    state_->protocol = detail::protocol_core::create(io, std::move(channel), std::move(protocol));
}

client_session::~client_session() = default;

void client_session::start_initialize(jsonrpc::cancellation_token cancellation,
                                      jsonrpc::completion<server_description> done) {
    auto& protocol = *state_->protocol;
    if (!protocol.advance(detail::phase::created, detail::phase::initializing)) {
        throw std::logic_error("client_session::initialize() called twice");
    }
    try {
        protocol.start();
    } catch (const std::exception& error) {
        done(std::make_exception_ptr(jsonrpc::connection_closed("initialize", error.what())), {});
        return;
    }
    const json params = {{"protocolVersion", std::string(latest_protocol_version)},
                         {"capabilities", state_->options.capabilities},
                         {"clientInfo", state_->options.client_info.to_json()}};
    jsonrpc::request_options options;
    options.timeout = state_->options.connect_timeout;
    options.max_duration = state_->options.connect_timeout;
    options.cancellation = std::move(cancellation);
    protocol.send_initialize(
        params, std::move(options),
        // Weak: a pending request must not keep its own session alive (an owner that drops the
        // session gets its pending operations failed by the destructor instead).
        [weak = weak_from_this(), done = std::move(done)](const std::exception_ptr& error,
                                                          const json& result) {
            const auto self = weak.lock();
            if (!self) {
                done(error ? error
                           : std::make_exception_ptr(jsonrpc::connection_closed(
                                 "initialize", "the client session was destroyed")),
                     {});
                return;
            }
            server_description server;
            try {
                if (error) std::rethrow_exception(error);
                server = read_initialize_result(result);
            } catch (...) {
                self->close();
                done(std::current_exception(), {});
                return;
            }
            auto& core = *self->state_->protocol;
            {
                std::lock_guard lock(self->state_->mutex);
                self->state_->server = server;
            }
            core.negotiated(server.protocol_version, server.capabilities);
            if (!core.advance(detail::phase::initializing, detail::phase::ready)) {
                done(std::make_exception_ptr(jsonrpc::connection_closed(
                         "initialize", "the session was closed during initialize")),
                     {});
                return;
            }
            core.notify("notifications/initialized");
            core.log().info("{}: connected to {} {} (MCP {})", core.name(), server.server_info.name,
                            server.server_info.version, server.protocol_version);
            done(nullptr, std::move(server));
        });
}

void client_session::start_list_tools(list_options options,
                                      jsonrpc::completion<std::vector<tool_descriptor>> done) {
    auto operation = std::make_shared<list_tools_operation>();
    operation->protocol = state_->protocol;
    operation->server = state_->options.name;
    operation->timeout = state_->options.request_timeout;
    operation->max_duration = state_->options.max_list_duration;
    operation->max_duration_setting = state_->options.max_list_setting;
    if (options.started) operation->started = *options.started;
    operation->cancellation = std::move(options.cancellation);
    operation->done = std::move(done);
    require_initialized("tools/list");
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
    const auto& defaults = state_->options;
    request.timeout =
        options.timeout.value_or(defaults.call_timeout.value_or(defaults.request_timeout));
    request.max_duration = options.max_duration.value_or(defaults.max_call_duration);
    request.activity_resets_timeout = true;
    request.cancellation = std::move(options.cancellation);
    request.on_progress = std::move(options.on_progress);
    request.progress_resets_timeout = options.progress_resets_timeout;
    state_->protocol->send_request(
        "tools/call", {{"name", name}, {"arguments", std::move(arguments)}}, std::move(request),
        [done = std::move(done)](const std::exception_ptr& error, const json& result) {
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
    const auto started = std::chrono::steady_clock::now();
    jsonrpc::request_options options;
    options.activity_resets_timeout = true;  // the dispatcher's defaults are ours (see create)
    state_->protocol->send_request(
        "ping", nullptr, std::move(options),
        [done = std::move(done), started](std::exception_ptr error, const json&) {
            done(std::move(error), std::chrono::duration_cast<std::chrono::microseconds>(
                                       std::chrono::steady_clock::now() - started));
        });
}

void client_session::start_request(const std::string& method, json params,
                                   jsonrpc::request_options options,
                                   jsonrpc::completion<json> done) {
    state_->protocol->send_request(method, std::move(params), std::move(options), std::move(done));
}

void client_session::notify(const std::string& method, json params) {
    state_->protocol->notify(method, std::move(params));
}

void client_session::on_request(const std::string& method, jsonrpc::request_handler handler) {
    state_->protocol->on_request(method, std::move(handler));
}

void client_session::on_notification(const std::string& method,
                                     jsonrpc::notification_handler handler) {
    state_->protocol->on_notification(method, std::move(handler));
}

void client_session::close() {
    state_->protocol->close("the client closed the session");
}

bool client_session::is_initialized() const {
    return state_->protocol->current() == detail::phase::ready;
}

bool client_session::is_closed() const {
    return state_->protocol->current() == detail::phase::closed;
}

server_description client_session::server() const {
    std::lock_guard lock(state_->mutex);
    if (state_->server.protocol_version.empty()) {
        throw std::logic_error("client_session::server() before initialize() completed");
    }
    return state_->server;
}

void client_session::require_initialized(const std::string& method) const {
    const auto now = state_->protocol->current();
    if (now == detail::phase::created || now == detail::phase::initializing) {
        throw std::logic_error("'" + method + "' requested before initialize() completed");
    }
}

}  // namespace ipybox::mcp::session
