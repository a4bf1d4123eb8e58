#pragma once
// A bounded pool of threads for blocking work (a kernel execution, pip), with threads made on
// demand: at most `max_threads` run at once and further work waits in line, in the order posted
// (the bound is the back-pressure: post() never makes a thread past it); a thread that finds no
// work for `idle_exit` ends. So a process at rest holds none of them, and one under load holds
// no more than the bound, however much work is queued.
//
// Thread-safety: post() and threads() may be called from any thread, also from work running in
// the pool. join() and the destructor must not be called from the pool's own work.
// Work that throws is logged and dropped; the thread goes on.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ipybox::core {

class work_pool {
  public:
    explicit work_pool(std::string name, std::size_t max_threads,
                       std::chrono::milliseconds idle_exit = std::chrono::seconds(2));
    ~work_pool();  // join()

    work_pool(const work_pool&) = delete;
    work_pool& operator=(const work_pool&) = delete;

    void post(std::function<void()> work);
    // Runs what is queued to its end, then ends every thread; post() afterwards is refused
    // (std::logic_error).
    void join();
    std::size_t threads() const;  // running now, busy or idle

  private:
    void run();
    void reap_exited(std::unique_lock<std::mutex>& lock);

    std::string name_;
    std::size_t max_threads_;
    std::chrono::milliseconds idle_exit_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::function<void()>> queue_;
    std::map<std::thread::id, std::thread> running_;
    std::vector<std::thread> exited_;  // ended by themselves, to be joined by someone else
    std::size_t idle_ = 0;
    bool stopping_ = false;
};

}  // namespace ipybox::core
