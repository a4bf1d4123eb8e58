#include "approval_bridge.hpp"

#include <algorithm>

#include "approval_question.hpp"
#include "ipybox/toolserver/routes.hpp"

namespace ipybox {

void approval_request::state::settle(bool value, std::string why) {
    {
        std::lock_guard lock(mutex);
        if (approved) return;
        approved = value;
        reason = std::move(why);
    }
    decided.notify_all();
}

approval_request::approval_request(std::shared_ptr<state> shared) : state_(std::move(shared)) {}
const std::string& approval_request::server_name() const {
    return state_->call.server_name;
}
const std::string& approval_request::tool_name() const {
    return state_->call.tool_name;
}
const std::string& approval_request::python_name() const {
    return state_->call.python_name;
}
const nlohmann::json& approval_request::tool_args() const {
    return state_->call.arguments;
}
std::string approval_request::describe() const {
    return state_->call.describe();
}
std::string approval_request::question() const {
    return app::approval_question(state_->call);
}
bool approval_request::is_library_save() const {
    return app::is_library_save(state_->call);
}
bool approval_request::is_shell_command() const {
    const auto& args = state_->call.arguments;
    return state_->call.server_name == toolserver::shell_server_name && args.is_object() &&
           args.contains("cmd") && args["cmd"].is_string();
}
void approval_request::accept() {
    state_->settle(true);
}
void approval_request::reject(std::string reason) {
    state_->settle(false, std::move(reason));
}

namespace app {

approval_bridge::approval_bridge(bool enabled, std::optional<std::chrono::milliseconds> timeout)
    : enabled_(enabled), timeout_(timeout) {}

approval::decision approval_bridge::decide(const approval::tool_call& call) {
    if (!enabled_) return {approval::verdict::approved, {}};
    return ask(call);
}

approval::decision approval_bridge::ask(const approval::tool_call& call) {
    auto request = std::make_shared<approval_request::state>();
    request->call = call;
    std::optional<stream_hooks> hooks;
    {
        std::lock_guard lock(mutex_);
        if (!open_) return {approval::verdict::rejected, "no execution is running to approve it"};
        hooks = hooks_;
        queued_.push_back(request);
        waiting_.push_back(request);
        // The first waiting call stops the execution's clock; the last one restarts it. Before
        // attach(), attach() does both.
        if (hooks && waiting_.size() == 1) hooks->pause_timeout();
    }
    if (hooks) hooks->wake();

    std::unique_lock wait_lock(request->mutex);
    const auto is_decided = [&] { return request->approved.has_value(); };
    bool decided = true;
    if (timeout_) {
        decided = request->decided.wait_for(wait_lock, *timeout_, is_decided);
    } else {
        request->decided.wait(wait_lock, is_decided);
    }
    if (!decided) request->approved = false;
    const bool approved = *request->approved;
    std::string reason = request->reason;
    wait_lock.unlock();

    {
        std::lock_guard lock(mutex_);
        std::erase(waiting_, request);
        std::erase(queued_, request);
        if (waiting_.empty() && hooks_) hooks_->resume_timeout();
    }
    if (!decided) {
        return {approval::verdict::timed_out,
                "no decision within " + std::to_string(timeout_->count()) + " ms"};
    }
    return {approved ? approval::verdict::approved : approval::verdict::rejected, reason};
}

void approval_bridge::open() {
    std::lock_guard lock(mutex_);
    open_ = true;
}

void approval_bridge::attach(const stream_hooks& hooks) {
    bool pending = false;
    {
        std::lock_guard lock(mutex_);
        open_ = true;
        hooks_ = hooks;
        pending = !waiting_.empty();
        if (pending) hooks.pause_timeout();
    }
    if (pending) hooks.wake();
}

void approval_bridge::detach() {
    std::vector<std::shared_ptr<approval_request::state>> abandoned;
    {
        std::lock_guard lock(mutex_);
        open_ = false;
        hooks_.reset();
        abandoned = waiting_;
        queued_.clear();
    }
    for (auto& request : abandoned) request->settle(false, "the execution ended");
}

std::optional<approval_request> approval_bridge::pop() {
    std::lock_guard lock(mutex_);
    if (queued_.empty()) return std::nullopt;
    auto next = std::move(queued_.front());
    queued_.pop_front();
    return approval_request(std::move(next));
}

}  // namespace app
}  // namespace ipybox
