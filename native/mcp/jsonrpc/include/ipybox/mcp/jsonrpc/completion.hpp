#pragma once
// Bridges our callback-based cores to Asio completion tokens.
//
// Every asynchronous operation of the MCP layers completes with the signature
// `void(std::exception_ptr, T)`: a null exception_ptr and the value, or an exception (a subclass
// of `request_failed` for expected failures) and a default-constructed T. Through `initiate`, a
// public operation accepts any Asio completion token:
//   - a callable `void(std::exception_ptr, T)`,
//   - `boost::asio::use_awaitable` (co_await yields T or throws),
//   - `boost::asio::use_future` (std::future<T>); but see blocking_completion below.
// The handler runs on its associated executor (by default the io_context given to `initiate`),
// never inside the initiating call, and the operation counts as outstanding work on that executor
// until it completes. A handler that throws is logged as an error; the exception goes no further.
#include <atomic>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <utility>

namespace ipybox::mcp::jsonrpc {

// The type-erased callback our cores take. Copyable; call it once.
template <class T>
using completion = std::function<void(std::exception_ptr, T)>;

namespace detail {

// Logs an exception thrown by a completion handler (to the "mcp" logger); never throws.
void report_handler_exception(std::exception_ptr error) noexcept;

template <class Handler, class Work>
struct completion_state {
    completion_state(Handler h, Work w) : handler(std::move(h)), work(std::move(w)) {}
    Handler handler;
    Work work;
    std::atomic<bool> done{false};
};

}  // namespace detail

// Runs `start(completion<T>)` and adapts the outcome to `token`. `start` must eventually call the
// completion exactly once (further calls are ignored).
template <class T, class Token, class Start>
auto initiate(boost::asio::io_context& io, Token&& token, Start&& start) {
    return boost::asio::async_initiate<Token, void(std::exception_ptr, T)>(
        [&io](auto handler, auto start_op) {
            auto executor = boost::asio::get_associated_executor(handler, io.get_executor());
            auto work = boost::asio::make_work_guard(executor);
            using state = detail::completion_state<decltype(handler), decltype(work)>;
            auto shared = std::make_shared<state>(std::move(handler), std::move(work));
            start_op(completion<T>([shared](std::exception_ptr error, T value) {
                if (shared->done.exchange(true)) return;
                auto target = shared->work.get_executor();
                boost::asio::post(target, [shared, error, value = std::move(value)]() mutable {
                    shared->work.reset();
                    try {
                        std::move(shared->handler)(error, std::move(value));
                    } catch (...) {
                        detail::report_handler_exception(std::current_exception());
                    }
                });
            }));
        },
        token, std::forward<Start>(start));
}

// For a thread that may block (a worker, never a handler of the io_context): pass it as the
// token, then wait on future(). Its completion runs on the io_context, where boost::asio::
// use_future's would run on Asio's system thread pool, which makes threads of its own (twice the
// cores) on first use and keeps them for the life of the process.
template <class T>
class blocking_completion {
  public:
    void operator()(std::exception_ptr error, T value) const {
        if (error) {
            promise_->set_exception(error);
        } else {
            promise_->set_value(std::move(value));
        }
    }
    std::future<T> future() const { return promise_->get_future(); }  // call once

  private:
    std::shared_ptr<std::promise<T>> promise_ = std::make_shared<std::promise<T>>();
};

// Starts an operation with a blocking_completion and waits for its outcome (throws its error).
template <class T, class Start>
T wait_for(Start&& start) {
    blocking_completion<T> done;
    auto outcome = done.future();
    std::forward<Start>(start)(done);
    return outcome.get();
}

}  // namespace ipybox::mcp::jsonrpc
