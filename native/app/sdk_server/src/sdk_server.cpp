#include "ipybox/sdk_server.hpp"

#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <future>
#include <map>
#include <mutex>
#include <optional>

#include "ipybox/core/log.hpp"
#include "ipybox/core/work_pool.hpp"
#include "ipybox/executor/mcp_runtime.hpp"
#include "ipybox/mcp/jsonrpc/dispatcher.hpp"
#include "ipybox/mcp/jsonrpc/errors.hpp"
#include "ipybox/mcp/transport/stdio_server_transport.hpp"
#include "sdk_protocol.hpp"

namespace ipybox {
namespace {

namespace asio = boost::asio;
namespace jsonrpc = mcp::jsonrpc;
using nlohmann::json;

// The approval requests waiting for the client's decision, by the number it answers with.
// Thread-safe.
class pending_approvals {
  public:
    std::int64_t add(std::int64_t execution, approval_request request) {
        std::lock_guard lock(mutex_);
        const auto number = next_++;
        waiting_.emplace(number, std::make_pair(execution, std::move(request)));
        return number;
    }
    std::optional<approval_request> take(std::int64_t number) {
        std::lock_guard lock(mutex_);
        const auto it = waiting_.find(number);
        if (it == waiting_.end()) return std::nullopt;
        auto request = std::move(it->second.second);
        waiting_.erase(it);
        return request;
    }
    // An execution that ended rejected what it still waited for; its numbers are forgotten.
    void forget_execution(std::int64_t execution) {
        std::lock_guard lock(mutex_);
        std::erase_if(waiting_, [&](const auto& entry) { return entry.second.first == execution; });
    }

  private:
    std::mutex mutex_;
    std::int64_t next_ = 1;
    std::map<std::int64_t, std::pair<std::int64_t, approval_request>> waiting_;
};

// Fired once, by stdin's end or a signal; waited for by run_sdk_server. Shared with callbacks
// that may outlive the wait.
class shutdown_signal {
  public:
    void fire() {
        std::call_once(once_, [this] { fired_.set_value(); });
    }
    void wait() { fired_.get_future().wait(); }

  private:
    std::once_flag once_;
    std::promise<void> fired_;
};

// The protocol's methods over one executor. Handlers run on the loop and never block there:
// an execution is async_execute(); start, reset and registrations go to `calls`.
class sdk_service : public std::enable_shared_from_this<sdk_service> {
  public:
    sdk_service(code_executor& executor, std::shared_ptr<jsonrpc::dispatcher> dispatcher,
                core::work_pool& calls)
        : executor_(executor), dispatcher_(std::move(dispatcher)), calls_(calls) {}

    void install() {
        const auto self = shared_from_this();
        using method =
            void (sdk_service::*)(const jsonrpc::incoming_request&, const jsonrpc::responder&);
        const auto bind = [self](method handler) {
            return [self, handler](const jsonrpc::incoming_request& request,
                                   const jsonrpc::responder& reply) {
                ((*self).*handler)(request, reply);
            };
        };
        dispatcher_->on_request("start", bind(&sdk_service::start));
        dispatcher_->on_request("execute", bind(&sdk_service::execute));
        dispatcher_->on_request("decide", bind(&sdk_service::decide));
        dispatcher_->on_request("cancel", bind(&sdk_service::cancel));
        dispatcher_->on_request("reset", bind(&sdk_service::reset));
        dispatcher_->on_request("register_mcp_server", bind(&sdk_service::register_server));
    }

  private:
    void start(const jsonrpc::incoming_request&, const jsonrpc::responder& reply) {
        on_worker(reply, [this] {
            executor_.start();
            return json{{"python", executor_.python().string()},
                        {"kernel_pid", executor_.kernel_pid()}};
        });
    }

    void reset(const jsonrpc::incoming_request&, const jsonrpc::responder& reply) {
        on_worker(reply, [this] {
            executor_.reset();
            return json::object();
        });
    }

    void register_server(const jsonrpc::incoming_request& request,
                         const jsonrpc::responder& reply) {
        auto params = app::sdk::parse_register(request.params);
        on_worker(reply, [this, params = std::move(params)] {
            try {
                executor_.register_mcp_server(params.server_name, params.server_params,
                                              /*generate_sources=*/false);
            } catch (const std::invalid_argument& e) {
                throw jsonrpc::jsonrpc_error(jsonrpc::error_code::invalid_params, e.what());
            }
            return json::object();
        });
    }

    void cancel(const jsonrpc::incoming_request&, const jsonrpc::responder& reply) {
        executor_.cancel();
        reply.reply(json::object());
    }

    void decide(const jsonrpc::incoming_request& request, const jsonrpc::responder& reply) {
        const auto params = app::sdk::parse_decide(request.params);
        auto waiting = approvals_.take(params.approval);
        if (waiting) params.accept ? waiting->accept() : waiting->reject(params.reason);
        reply.reply(json{{"decided", waiting.has_value()}});
    }

    void execute(const jsonrpc::incoming_request& request, const jsonrpc::responder& reply) {
        const auto params = app::sdk::parse_execute(request.params);
        executor_.async_execute(
            params.code, params.timeout,
            [self = shared_from_this(), execution = params.execution,
             reply](code_execution_step step) { self->on_step(execution, reply, step); });
    }

    void on_step(std::int64_t execution, const jsonrpc::responder& reply,
                 code_execution_step& step) {
        if (const auto* chunk = std::get_if<code_execution_chunk>(&step)) {
            dispatcher_->send_notification("execution/chunk",
                                           app::sdk::chunk_notification(execution, *chunk));
        } else if (auto* request = std::get_if<approval_request>(&step)) {
            const auto number = approvals_.add(execution, *request);
            dispatcher_->send_notification(
                "execution/approval", app::sdk::approval_notification(
                                          execution, number, request->what(), request->question()));
        } else if (const auto* result = std::get_if<code_execution_result>(&step)) {
            approvals_.forget_execution(execution);
            reply.reply(app::sdk::result_json(*result));
        } else {
            approvals_.forget_execution(execution);
            reply.reply_error(app::sdk::failure_error(std::get<code_execution_failure>(step)));
        }
    }

    // Runs `work` on the calls' worker and answers with what it returns or throws (a failed
    // start as the execution failure it is, anything else through the dispatcher's mapping).
    template <typename Work>
    void on_worker(const jsonrpc::responder& reply, Work work) {
        calls_.post([self = shared_from_this(), reply, work = std::move(work)]() mutable {
            try {
                reply.reply(work());
            } catch (const code_execution_error& e) {
                reply.reply_error(app::sdk::failure_error(e.failure()));
            } catch (...) {
                reply.reply_exception(std::current_exception());
            }
        });
    }

    code_executor& executor_;
    std::shared_ptr<jsonrpc::dispatcher> dispatcher_;
    core::work_pool& calls_;
    pending_approvals approvals_;
};

}  // namespace

int run_sdk_server(code_executor_options options) {
    auto log = core::logger("sdk");
    // Declared first: the loop outlives everything that posts to it.
    app::mcp_runtime runtime;
    options.io_context = &runtime.io();
    code_executor executor(std::move(options));
    core::work_pool calls("sdk-calls", 1);
    const auto shutdown = std::make_shared<shutdown_signal>();
    const auto closed = std::make_shared<shutdown_signal>();

    auto transport = mcp::transport::make_stdio_server_transport(runtime.io());
    jsonrpc::dispatcher_options dispatch;
    dispatch.name = "sdk";
    dispatch.peer = "the Python SDK";
    auto dispatcher = jsonrpc::dispatcher::create(
        runtime.io(),
        [transport](jsonrpc::message message) { transport->send(std::move(message)); }, dispatch);
    std::make_shared<sdk_service>(executor, dispatcher, calls)->install();

    asio::signal_set signals(runtime.io(), SIGTERM, SIGINT);
    signals.async_wait([shutdown, log](const boost::system::error_code& error, int signal) {
        if (error) return;
        log->info("received signal {}; shutting down", signal);
        shutdown->fire();
    });
    std::weak_ptr<jsonrpc::dispatcher> weak = dispatcher;
    transport->start(
        [weak](jsonrpc::decode_result frame) {
            if (auto open = weak.lock()) open->receive(std::move(frame));
        },
        [shutdown, closed, log](const mcp::transport::close_info& info) {
            log->info("client connection closed: {}", info.reason);
            closed->fire();
            shutdown->fire();
        },
        [weak] {
            if (auto open = weak.lock()) open->note_activity();
        });
    log->info("ipybox sdk serving on stdio");
    shutdown->wait();

    // A running execution ends as cancelled; then nothing is left waiting on the client.
    executor.cancel();
    calls.join();
    executor.stop();
    dispatcher->close("ipybox is shutting down");
    transport->close();
    closed->wait();  // what was queued is written (or the client is gone) before the end
    boost::system::error_code ignored;
    signals.cancel(ignored);
    return 0;
}

}  // namespace ipybox
