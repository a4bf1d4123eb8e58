#include "ipybox/mcp/session/server_session.hpp"

#include <algorithm>
#include <array>
#include <boost/asio/co_spawn.hpp>
#include <mutex>
#include <vector>

#include "ipybox/core/log.hpp"
#include "ipybox/core/version.hpp"
#include "ipybox/mcp/jsonrpc/errors.hpp"
#include "ipybox/mcp/session/protocol_version.hpp"
#include "ipybox/mcp/session/request_meta.hpp"
#include "protocol_core.hpp"

namespace ipybox::mcp::session {
namespace {

using jsonrpc::error_code::invalid_params;
using jsonrpc::error_code::invalid_request;

// How long a modern client may keep tools/list and server/discover: our tools never change while
// the server runs.
constexpr int tools_list_ttl_ms = 300000;

constexpr std::array<std::string_view, 8> log_levels = {"debug", "info",     "notice", "warning",
                                                        "error", "critical", "alert",  "emergency"};

struct registered_tool {
    tool_descriptor descriptor;
    tool_handler handler;
};

// Which era a method belongs to (request_meta.hpp); 2026-07-28 removed the handshake, ping and
// logging/setLevel, and added server/discover.
enum class era { legacy, both, modern };

// A result in the shape the request's era expects.
json shaped(json result, const std::optional<request_meta>& modern,
            const implementation_info& server) {
    if (modern) return complete_result(std::move(result), server);
    // Multi round-trip requests are the 2026-07-28 era's: never sent to an older client.
    if (result.is_object() && result.value("resultType", "") == "input_required") {
        return call_tool_result::text("the tool needs input this MCP client cannot give", true)
            .to_json();
    }
    return result;
}

// The MCP policy for the outcome of a tool: a result, a protocol error, or a failed run.
void finish_tool_call(const jsonrpc::responder& responder, const std::string& tool,
                      const std::exception_ptr& error, call_tool_result result,
                      const std::function<json(json)>& shape) {
    if (!error) {
        responder.reply(shape(std::move(result).to_json()));
        return;
    }
    try {
        std::rethrow_exception(error);
    } catch (const jsonrpc::jsonrpc_error&) {
        responder.reply_exception(error);
    } catch (const std::exception& failure) {
        core::logger("mcp")->info("tool '{}' failed: {}", tool, failure.what());
        responder.reply(shape(call_tool_result::text(failure.what(), true).to_json()));
    } catch (...) {
        responder.reply(shape(
            call_tool_result::text("the tool failed with an unknown exception", true).to_json()));
    }
}

// The era of `request` as far as `method` allows: the modern fields, or nullopt for legacy.
// Throws the JSON-RPC error a request of the wrong era gets.
// A session serving the legacy era only answers server/discover alone in the modern one.
std::optional<request_meta> era_of(const std::string& method, era served, const json& params,
                                   served_eras eras) {
    auto modern = read_request_meta(params);
    if (modern && eras == served_eras::legacy_only && served != era::modern) {
        throw unsupported_version_error(modern->protocol_version, eras);
    }
    if (modern && served == era::legacy) {
        throw jsonrpc::jsonrpc_error(
            jsonrpc::error_code::method_not_found,
            "Method not found: " + method + " is not part of MCP " + modern->protocol_version);
    }
    if (!modern && served == era::modern) {
        throw jsonrpc::jsonrpc_error(invalid_params,
                                     "Invalid params: " + method + " needs _meta with \"" +
                                         std::string(meta_key::protocol_version) + "\" and \"" +
                                         std::string(meta_key::client_capabilities) + "\"");
    }
    return modern;
}

}  // namespace

struct server_session::state {
    std::shared_ptr<detail::protocol_core> protocol;
    server_options options;

    mutable std::mutex mutex;
    bool initialized_notified = false;  // notifications/initialized received
    bool early_request_logged = false;
    implementation_info client_info;
    std::string log_level = "info";
    std::vector<registered_tool> tools;  // registration order: stable pagination

    bool initialized() const { return protocol->current() == detail::phase::ready; }

    void require_initialized(const std::string& method) {
        if (!initialized()) {
            throw jsonrpc::jsonrpc_error(
                invalid_request,
                "the session is not initialized: send initialize before '" + method + "'");
        }
        std::lock_guard lock(mutex);
        if (!initialized_notified && !early_request_logged) {
            early_request_logged = true;
            protocol->log().info(
                "{}: the client sent '{}' before notifications/initialized; serving it",
                options.name, method);
        }
    }
};

std::shared_ptr<server_session> server_session::create(
    boost::asio::io_context& io, std::shared_ptr<transport::transport> channel,
    server_options options) {
    std::shared_ptr<server_session> session(
        new server_session(io, std::move(channel), std::move(options)));
    session->register_handlers();
    return session;
}

server_session::server_session(boost::asio::io_context& io,
                               std::shared_ptr<transport::transport> channel,
                               server_options options)
    : io_(io), state_(std::make_unique<state>()) {
    if (options.server_info.version.empty()) options.server_info.version = core::version;
    state_->options = std::move(options);
    state_->protocol = detail::protocol_core::create(
        io, std::move(channel),
        detail::protocol_options_for(detail::sender::server, state_->options, spdlog::level::info));
}

server_session::~server_session() = default;

void server_session::register_handlers() {
    std::weak_ptr<server_session> weak = shared_from_this();
    using answer_function = std::function<json(server_session&, const json&, bool modern)>;
    // `before_initialize`: a legacy request served before the handshake (a modern one always is).
    auto answer = [this, weak](const std::string& method, era served, bool before_initialize,
                               const answer_function& compute) {
        state_->protocol->on_request(method, [weak, method, served, before_initialize, compute](
                                                 const jsonrpc::incoming_request& request,
                                                 const jsonrpc::responder& responder) {
            auto self = weak.lock();
            if (!self) throw std::runtime_error("the server session is gone");
            const auto modern = era_of(method, served, request.params, self->state_->options.eras);
            if (!modern && !before_initialize) self->state_->require_initialized(method);
            responder.reply(shaped(compute(*self, request.params, modern.has_value()), modern,
                                   self->state_->options.server_info));
        });
    };
    answer("initialize", era::legacy, true, [](server_session& self, const json& params, bool) {
        return self.answer_initialize(params);
    });
    answer("server/discover", era::modern, true,
           [](server_session& self, const json&, bool) { return self.answer_discover(); });
    answer("ping", era::legacy, true,
           [](server_session&, const json&, bool) { return json::object(); });
    answer("tools/list", era::both, false,
           [](server_session& self, const json& params, bool modern) {
               return self.answer_tools_list(params, modern);
           });
    answer("logging/setLevel", era::legacy, false,
           [](server_session& self, const json& params, bool) {
               const auto level = params.is_object() ? params.value("level", std::string()) : "";
               if (std::find(log_levels.begin(), log_levels.end(), level) == log_levels.end()) {
                   throw jsonrpc::jsonrpc_error(
                       invalid_params, "logging/setLevel needs a syslog level such as \"info\"");
               }
               std::lock_guard lock(self.state_->mutex);
               self.state_->log_level = level;
               return json::object();
           });
    state_->protocol->on_request("tools/call", [weak](const jsonrpc::incoming_request& request,
                                                      const jsonrpc::responder& responder) {
        auto self = weak.lock();
        if (!self) throw std::runtime_error("the server session is gone");
        self->serve_tools_call(request, responder);
    });
    state_->protocol->on_notification("notifications/initialized",
                                      [weak](const jsonrpc::notification&) {
                                          if (auto self = weak.lock()) {
                                              std::lock_guard lock(self->state_->mutex);
                                              self->state_->initialized_notified = true;
                                          }
                                      });
}

json server_session::answer_initialize(const json& params) {
    const auto requested = params.is_object() ? params.find("protocolVersion") : params.end();
    if (!params.is_object() || requested == params.end() || !requested->is_string()) {
        throw jsonrpc::jsonrpc_error(invalid_params,
                                     "initialize needs a string \"protocolVersion\"");
    }
    const auto version = negotiate_protocol_version(requested->get<std::string>());
    auto client = implementation_info::from_json(params.value("clientInfo", json()));
    auto& protocol = *state_->protocol;
    // Capabilities and version are settled before the phase says ready, so that a request sent
    // as soon as the session is ready is checked against them.
    if (!protocol.advance(detail::phase::created, detail::phase::initializing)) {
        throw jsonrpc::jsonrpc_error(invalid_request, "initialize was already answered");
    }
    protocol.negotiated(version, params.value("capabilities", json::object()));
    protocol.advance(detail::phase::initializing, detail::phase::ready);
    {
        std::lock_guard lock(state_->mutex);
        state_->client_info = client;
    }
    protocol.log().info("{}: client {} {} initialized (MCP {}, requested {})", state_->options.name,
                        client.name, client.version, version, requested->get<std::string>());
    json result = {
        {"protocolVersion", version},
        {"capabilities", {{"tools", {{"listChanged", true}}}, {"logging", json::object()}}},
        {"serverInfo", state_->options.server_info.to_json()}};
    if (!state_->options.instructions.empty())
        result["instructions"] = state_->options.instructions;
    return result;
}

json server_session::answer_discover() const {
    json result = {{"supportedVersions", served_protocol_versions(state_->options.eras)},
                   {"capabilities", {{"tools", json::object()}}},
                   {"ttlMs", tools_list_ttl_ms},
                   {"cacheScope", "public"}};
    if (!state_->options.instructions.empty())
        result["instructions"] = state_->options.instructions;
    return result;
}

json server_session::answer_tools_list(const json& params, bool modern) const {
    std::size_t start = 0;
    if (params.is_object() && params.contains("cursor") && !params["cursor"].is_null()) {
        const auto& cursor = params["cursor"];
        const auto text = cursor.is_string() ? cursor.get<std::string>() : std::string();
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
            text.size() > 9) {
            throw jsonrpc::jsonrpc_error(invalid_params, "tools/list: unknown cursor");
        }
        start = std::stoul(text);
    }
    std::lock_guard lock(state_->mutex);
    const auto& tools = state_->tools;
    if (start > tools.size())
        throw jsonrpc::jsonrpc_error(invalid_params, "tools/list: stale cursor");
    const auto page = state_->options.tools_page_size;
    const auto end = page == 0 ? tools.size() : std::min(tools.size(), start + page);
    json list = json::array();
    for (auto i = start; i < end; ++i) list.push_back(tools[i].descriptor.to_json());
    json result = {{"tools", std::move(list)}};
    if (end < tools.size()) result["nextCursor"] = std::to_string(end);
    if (modern) {  // CacheableResult: our tools are the same for every client
        result["ttlMs"] = tools_list_ttl_ms;
        result["cacheScope"] = "public";
    }
    return result;
}

void server_session::serve_tools_call(const jsonrpc::incoming_request& request,
                                      const jsonrpc::responder& responder) {
    const json& params = request.params;
    auto modern = era_of("tools/call", era::both, params, state_->options.eras);
    if (!modern) state_->require_initialized("tools/call");
    if (!params.is_object() || !params.contains("name") || !params["name"].is_string()) {
        throw jsonrpc::jsonrpc_error(invalid_params, "tools/call needs a string \"name\"");
    }
    const auto name = params["name"].get<std::string>();
    json arguments = params.value("arguments", json::object());
    if (arguments.is_null()) arguments = json::object();
    if (!arguments.is_object()) {
        throw jsonrpc::jsonrpc_error(invalid_params, "tools/call: \"arguments\" must be an object");
    }
    tool_handler handler;
    {
        std::lock_guard lock(state_->mutex);
        const auto found =
            std::find_if(state_->tools.begin(), state_->tools.end(),
                         [&](const auto& tool) { return tool.descriptor.name == name; });
        if (found == state_->tools.end()) {
            throw jsonrpc::jsonrpc_error(invalid_params, "Unknown tool: " + name);
        }
        handler = found->handler;
    }
    std::function<json(json)> shape = [modern, server = state_->options.server_info](json result) {
        return shaped(std::move(result), modern, server);
    };
    request_context context(request.id, request.cancellation, responder, std::move(modern),
                            weak_from_this());
    context.read_retry(params);
    // co_spawn keeps this function object (and the handler's captures) alive until the tool's
    // coroutine completes; a synchronous throw from the handler is delivered as a failure too.
    boost::asio::co_spawn(
        io_,
        [handler = std::move(handler), arguments = std::move(arguments), context]() mutable {
            return handler(std::move(arguments), context);
        },
        [responder, name, shape = std::move(shape)](const std::exception_ptr& error,
                                                    call_tool_result result) {
            finish_tool_call(responder, name, error, std::move(result), shape);
        });
}

void server_session::add_tool(tool_descriptor descriptor, tool_handler handler) {
    if (descriptor.name.empty() || !handler) {
        throw std::invalid_argument("add_tool needs a name and a handler");
    }
    {
        std::lock_guard lock(state_->mutex);
        auto& tools = state_->tools;
        const auto found = std::find_if(tools.begin(), tools.end(), [&](const auto& tool) {
            return tool.descriptor.name == descriptor.name;
        });
        if (found != tools.end()) {
            *found = {std::move(descriptor), std::move(handler)};
        } else {
            tools.push_back({std::move(descriptor), std::move(handler)});
        }
    }
    if (state_->initialized()) notify("notifications/tools/list_changed");
}

bool server_session::remove_tool(const std::string& name) {
    bool removed = false;
    {
        std::lock_guard lock(state_->mutex);
        auto& tools = state_->tools;
        const auto before = tools.size();
        tools.erase(std::remove_if(tools.begin(), tools.end(),
                                   [&](const auto& tool) { return tool.descriptor.name == name; }),
                    tools.end());
        removed = tools.size() != before;
    }
    if (removed && state_->initialized()) notify("notifications/tools/list_changed");
    return removed;
}

void server_session::start() {
    state_->protocol->start();
}

void server_session::close() {
    state_->protocol->close("the server closed the session");
}

void server_session::start_request(const std::string& method, json params,
                                   jsonrpc::request_options options,
                                   jsonrpc::completion<json> done) {
    state_->protocol->send_request(method, std::move(params), std::move(options), std::move(done));
}

void server_session::notify(const std::string& method, json params) {
    state_->protocol->notify(method, std::move(params));
}

bool server_session::is_initialized() const {
    return state_->initialized();
}

std::string server_session::protocol_version() const {
    return state_->protocol->protocol_version();
}

implementation_info server_session::client_info() const {
    std::lock_guard lock(state_->mutex);
    return state_->client_info;
}

json server_session::client_capabilities() const {
    return state_->protocol->peer_capabilities();
}

bool server_session::client_supports(const std::string& capability) const {
    return state_->protocol->peer_supports(capability);
}

std::string server_session::log_level() const {
    std::lock_guard lock(state_->mutex);
    return state_->log_level;
}

}  // namespace ipybox::mcp::session
