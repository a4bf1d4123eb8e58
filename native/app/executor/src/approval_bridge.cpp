#include "approval_bridge.hpp"

#include <boost/asio/post.hpp>

#include "approval_question.hpp"

namespace ipybox {

void approval_request::state::settle(approval::decision decision) {
    approval::decision_handler handler;
    std::shared_ptr<boost::asio::steady_timer> timer;
    std::function<void(const state*)> take_off;
    {
        std::lock_guard lock(mutex);
        handler = std::exchange(done, nullptr);
        timer = std::move(expiry);
        take_off = std::move(forget);
    }
    if (!handler) return;
    if (timer) {
        // The timer belongs to the loop's thread; a cancelled wait ends without a decision.
        boost::asio::post(timer->get_executor(), [timer] { timer->cancel(); });
    }
    if (take_off) take_off(this);
    handler(std::move(decision));
}

approval_request::approval_request(std::shared_ptr<state> shared) : state_(std::move(shared)) {}

const approval::request& approval_request::what() const {
    return state_->what;
}
const approval::tool_call* approval_request::as_tool_call() const {
    return std::get_if<approval::tool_call>(&state_->what);
}
const approval::shell_command* approval_request::as_shell_command() const {
    return std::get_if<approval::shell_command>(&state_->what);
}
const approval::save_action* approval_request::as_save_action() const {
    return std::get_if<approval::save_action>(&state_->what);
}
const approval::add_dependencies* approval_request::as_add_dependencies() const {
    return std::get_if<approval::add_dependencies>(&state_->what);
}
bool approval_request::needs_a_person() const {
    return approval::needs_a_person(state_->what);
}

namespace {
const approval::tool_call no_tool_call{{}, {}, nlohmann::json(), {}};
}  // namespace

const std::string& approval_request::server_name() const {
    const auto* call = as_tool_call();
    return (call ? *call : no_tool_call).server_name;
}
const std::string& approval_request::tool_name() const {
    const auto* call = as_tool_call();
    return (call ? *call : no_tool_call).tool_name;
}
const std::string& approval_request::python_name() const {
    const auto* call = as_tool_call();
    return (call ? *call : no_tool_call).python_name;
}
const nlohmann::json& approval_request::tool_args() const {
    const auto* call = as_tool_call();
    return (call ? *call : no_tool_call).arguments;
}
std::string approval_request::describe() const {
    return approval::describe(state_->what);
}
std::string approval_request::question() const {
    return app::approval_question(state_->what);
}
void approval_request::accept() {
    state_->settle(approval::decision::approve());
}
void approval_request::reject(std::string reason) {
    state_->settle(approval::decision::reject(std::move(reason)));
}

namespace app {

using request_state = approval_request::state;

struct approval_bridge::lists {
    std::mutex mutex;
    bool open = false;
    std::optional<stream_hooks> hooks;
    std::deque<std::shared_ptr<request_state>> queued;    // not yet popped by the consumer
    std::vector<std::shared_ptr<request_state>> waiting;  // not yet decided

    // A decided request leaves both lists; the last one restarts the execution's clock.
    void forget(const request_state* request) {
        std::optional<stream_hooks> resume;
        {
            std::lock_guard lock(mutex);
            const auto same = [request](const auto& held) { return held.get() == request; };
            std::erase_if(waiting, same);
            std::erase_if(queued, same);
            if (waiting.empty() && hooks) resume = hooks;
        }
        if (resume) resume->resume_timeout();
    }
};

approval_bridge::approval_bridge(boost::asio::io_context& io,
                                 std::optional<std::chrono::milliseconds> timeout)
    : io_(io), timeout_(timeout), lists_(std::make_shared<lists>()) {}

approval_bridge::~approval_bridge() {
    detach();
}

void approval_bridge::ask(approval::request what, approval::decision_handler done) {
    auto request = std::make_shared<request_state>();
    request->what = std::move(what);
    request->done = std::move(done);
    request->forget = [weak = std::weak_ptr<lists>(lists_)](const request_state* settled) {
        if (auto held = weak.lock()) held->forget(settled);
    };
    std::optional<stream_hooks> hooks;
    {
        std::lock_guard lock(lists_->mutex);
        if (!lists_->open) {
            request->forget = nullptr;
            request->settle(approval::decision::reject("no execution is running to approve it"));
            return;
        }
        hooks = lists_->hooks;
        lists_->queued.push_back(request);
        lists_->waiting.push_back(request);
        // The first waiting request stops the execution's clock; the last one restarts it.
        // Before attach(), attach() does both.
        if (hooks && lists_->waiting.size() == 1) hooks->pause_timeout();
    }
    if (timeout_) {
        // Every operation on the timer runs on the loop's thread, in the order posted: the wait
        // here, a cancel from settle() after it.
        auto timer = std::make_shared<boost::asio::steady_timer>(io_, *timeout_);
        const auto limit = timeout_->count();
        boost::asio::post(io_, [timer, weak = std::weak_ptr<request_state>(request), limit] {
            timer->async_wait([weak, limit](boost::system::error_code ec) {
                auto expired = weak.lock();
                if (ec || !expired) return;
                expired->settle({approval::verdict::timed_out,
                                 "no decision within " + std::to_string(limit) + " ms"});
            });
        });
        bool settled = false;
        {
            std::lock_guard lock(request->mutex);
            settled = !request->done;
            if (!settled) request->expiry = timer;
        }
        if (settled) boost::asio::post(io_, [timer] { timer->cancel(); });
    }
    if (hooks) hooks->wake();
}

void approval_bridge::open() {
    std::lock_guard lock(lists_->mutex);
    lists_->open = true;
}

void approval_bridge::attach(const stream_hooks& hooks) {
    bool pending = false;
    {
        std::lock_guard lock(lists_->mutex);
        lists_->open = true;
        lists_->hooks = hooks;
        pending = !lists_->waiting.empty();
        if (pending) hooks.pause_timeout();
    }
    if (pending) hooks.wake();
}

void approval_bridge::detach() {
    std::vector<std::shared_ptr<request_state>> abandoned;
    {
        std::lock_guard lock(lists_->mutex);
        lists_->open = false;
        lists_->hooks.reset();
        abandoned = lists_->waiting;
        lists_->queued.clear();
    }
    for (auto& request : abandoned)
        request->settle(approval::decision::reject("the execution ended"));
}

std::optional<approval_request> approval_bridge::pop() {
    std::lock_guard lock(lists_->mutex);
    if (lists_->queued.empty()) return std::nullopt;
    auto next = std::move(lists_->queued.front());
    lists_->queued.pop_front();
    return approval_request(std::move(next));
}

}  // namespace app
}  // namespace ipybox
