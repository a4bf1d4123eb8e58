#pragma once
// Runs blocking work (a kernel execution, pip) on a worker pool and resumes the calling
// coroutine on its own executor with the result or the exception.
//
// Deliberately not a coroutine itself (it returns the awaitable async_initiate makes): GCC 12
// may destroy a by-value coroutine parameter built from a temporary twice, and `work` is one.
#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <exception>
#include <memory>

#include "ipybox/core/work_pool.hpp"

namespace ipybox::app {

template <typename Result, typename Work>
boost::asio::awaitable<Result> offload(core::work_pool& pool, Work work) {
    namespace asio = boost::asio;
    return asio::async_initiate<const asio::use_awaitable_t<>&, void(std::exception_ptr, Result)>(
        [&pool, work = std::move(work)](auto handler) mutable {
            auto executor = asio::get_associated_executor(handler);
            auto run = [work = std::move(work), handler = std::move(handler), executor]() mutable {
                std::exception_ptr failure;
                Result result{};
                try {
                    result = work();
                } catch (...) {
                    failure = std::current_exception();
                }
                asio::post(executor, [handler = std::move(handler), failure,
                                      result = std::move(result)]() mutable {
                    std::move(handler)(failure, std::move(result));
                });
            };
            // The pool takes a copyable function; the handler is move-only.
            auto task = std::make_shared<decltype(run)>(std::move(run));
            pool.post([task] { (*task)(); });
        },
        asio::use_awaitable);
}

}  // namespace ipybox::app
