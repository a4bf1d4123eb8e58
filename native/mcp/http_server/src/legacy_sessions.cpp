#include "legacy_sessions.hpp"

#include <algorithm>

#include "ipybox/core/log.hpp"
#include "ipybox/core/random.hpp"

namespace ipybox::mcp::http_server::detail {
namespace {

std::optional<std::string> progress_token_of(const jsonrpc::message& msg) {
    const json* params = nullptr;
    if (const auto* request = std::get_if<jsonrpc::request>(&msg)) params = &request->params;
    if (const auto* note = std::get_if<jsonrpc::notification>(&msg)) params = &note->params;
    if (params == nullptr || !params->is_object()) return std::nullopt;
    if (const auto* note = std::get_if<jsonrpc::notification>(&msg)) {
        if (note->method != "notifications/progress") return std::nullopt;
        return params->contains("progressToken") ? std::optional(params->at("progressToken").dump())
                                                 : std::nullopt;
    }
    const auto meta = params->find("_meta");
    if (meta == params->end() || !meta->is_object() || !meta->contains("progressToken")) {
        return std::nullopt;
    }
    return meta->at("progressToken").dump();
}

std::optional<jsonrpc::request_id> answered_id(const jsonrpc::message& msg) {
    if (const auto* answer = std::get_if<jsonrpc::response>(&msg)) return answer->id;
    if (const auto* failure = std::get_if<jsonrpc::error_response>(&msg)) return failure->id;
    return std::nullopt;
}

}  // namespace

void session_channel::post(jsonrpc::message msg, std::shared_ptr<exchange> sink) {
    if (sink) {
        std::lock_guard lock(mutex_);
        if (auto token = progress_token_of(msg)) progress_[*token] = sink->id();
        open_.push_back(std::move(sink));
    }
    deliver(std::move(msg));
}

void session_channel::forget(const jsonrpc::request_id& id) {
    open_.erase(std::remove_if(open_.begin(), open_.end(),
                               [&](const auto& sink) { return sink->id() == id; }),
                open_.end());
    for (auto it = progress_.begin(); it != progress_.end();) {
        it = it->second == id ? progress_.erase(it) : std::next(it);
    }
}

void session_channel::stream_gone(const jsonrpc::request_id& id) {
    {
        std::lock_guard lock(mutex_);
        forget(id);
    }
    deliver(
        jsonrpc::notification{"notifications/cancelled",
                              {{"requestId", jsonrpc::to_json(id)},
                               {"reason", "the client closed the HTTP stream of the request"}}});
}

bool session_channel::has_open_exchanges() const {
    std::lock_guard lock(mutex_);
    return !open_.empty();
}

void session_channel::do_send(jsonrpc::message msg) {
    std::shared_ptr<exchange> target;
    {
        std::lock_guard lock(mutex_);
        const auto find = [&](const jsonrpc::request_id& id) {
            const auto found = std::find_if(open_.begin(), open_.end(),
                                            [&](const auto& sink) { return sink->id() == id; });
            return found == open_.end() ? nullptr : *found;
        };
        if (const auto id = answered_id(msg)) {
            target = find(*id);
            if (target) forget(*id);
        } else if (const auto token = progress_token_of(msg);
                   token && std::holds_alternative<jsonrpc::notification>(msg)) {
            if (const auto found = progress_.find(*token); found != progress_.end()) {
                target = find(found->second);
            }
        } else if (!open_.empty()) {
            target = open_.front();
        }
    }
    if (target) {
        target->push(std::move(msg));
    } else {
        core::logger("http")->debug("{}: no open stream for '{}'; dropped", describe(),
                                    jsonrpc::method_of(msg));
    }
}

void session_channel::do_close() {
    report_closed({"the session ended", true, std::nullopt, std::nullopt});
}

legacy_sessions::legacy_sessions(std::size_t max_sessions, std::chrono::milliseconds idle_limit,
                                 session_factory factory)
    : max_sessions_(max_sessions), idle_limit_(idle_limit), factory_(std::move(factory)) {}

std::shared_ptr<legacy_session> legacy_sessions::open(const client_identity& caller) {
    {
        std::lock_guard lock(mutex_);
        if (sessions_.size() >= max_sessions_) return nullptr;
    }
    auto entry = std::make_shared<legacy_session>();
    entry->id = core::random_hex(16);
    entry->principal = caller.principal;
    entry->channel = std::make_shared<session_channel>(entry->id);
    entry->session = factory_(entry->channel, caller);
    entry->last_used = std::chrono::steady_clock::now();
    entry->session->start();
    std::lock_guard lock(mutex_);
    sessions_[entry->id] = entry;
    return entry;
}

std::shared_ptr<legacy_session> legacy_sessions::find(const std::string& id,
                                                      const std::string& principal) {
    std::lock_guard lock(mutex_);
    const auto found = sessions_.find(id);
    if (found == sessions_.end() || found->second->principal != principal) return nullptr;
    found->second->last_used = std::chrono::steady_clock::now();
    return found->second;
}

bool legacy_sessions::close(const std::string& id, const std::string& principal) {
    std::shared_ptr<legacy_session> ended;
    {
        std::lock_guard lock(mutex_);
        const auto found = sessions_.find(id);
        if (found == sessions_.end() || found->second->principal != principal) return false;
        ended = std::move(found->second);
        sessions_.erase(found);
    }
    ended->session->close();
    return true;
}

std::size_t legacy_sessions::reap_idle() {
    std::vector<std::shared_ptr<legacy_session>> ended;
    {
        std::lock_guard lock(mutex_);
        const auto now = std::chrono::steady_clock::now();
        for (auto it = sessions_.begin(); it != sessions_.end();) {
            const auto& entry = *it->second;
            if (!entry.channel->has_open_exchanges() && now - entry.last_used > idle_limit_) {
                ended.push_back(std::move(it->second));
                it = sessions_.erase(it);
            } else {
                ++it;
            }
        }
    }
    for (const auto& entry : ended) entry->session->close();
    return ended.size();
}

void legacy_sessions::close_all() {
    std::map<std::string, std::shared_ptr<legacy_session>> ended;
    {
        std::lock_guard lock(mutex_);
        ended.swap(sessions_);
    }
    for (const auto& [id, entry] : ended) entry->session->close();
}

std::size_t legacy_sessions::size() const {
    std::lock_guard lock(mutex_);
    return sessions_.size();
}

}  // namespace ipybox::mcp::http_server::detail
