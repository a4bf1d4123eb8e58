#include "ipybox/core/work_pool.hpp"

#include <stdexcept>

#include "ipybox/core/log.hpp"

namespace ipybox::core {

work_pool::work_pool(std::string name, std::size_t max_threads, std::chrono::milliseconds idle_exit)
    : name_(std::move(name)),
      max_threads_(std::max<std::size_t>(1, max_threads)),
      idle_exit_(idle_exit) {}

work_pool::~work_pool() {
    join();
}

void work_pool::post(std::function<void()> work) {
    std::unique_lock lock(mutex_);
    if (stopping_) throw std::logic_error("work_pool " + name_ + " was joined");
    reap_exited(lock);
    queue_.push_back(std::move(work));
    if (idle_ >= queue_.size() || running_.size() >= max_threads_) {
        wake_.notify_one();
        return;
    }
    std::thread thread([this] { run(); });
    running_.emplace(thread.get_id(), std::move(thread));
}

void work_pool::join() {
    std::unique_lock lock(mutex_);
    stopping_ = true;
    wake_.notify_all();
    while (!running_.empty() || !exited_.empty()) {
        reap_exited(lock);
        if (running_.empty()) break;
        // Each thread that ends moves itself to exited_ and says so.
        wake_.wait(lock, [this] { return !exited_.empty(); });
    }
}

std::size_t work_pool::threads() const {
    std::lock_guard lock(mutex_);
    return running_.size();
}

void work_pool::reap_exited(std::unique_lock<std::mutex>& lock) {
    auto exited = std::move(exited_);
    exited_.clear();
    if (exited.empty()) return;
    lock.unlock();  // they are past the lock, on their way out
    for (auto& thread : exited) thread.join();
    lock.lock();
}

void work_pool::run() {
    std::unique_lock lock(mutex_);
    while (true) {
        ++idle_;
        const bool woke =
            wake_.wait_for(lock, idle_exit_, [this] { return !queue_.empty() || stopping_; });
        --idle_;
        if (!woke || (queue_.empty() && stopping_)) break;
        auto work = std::move(queue_.front());
        queue_.pop_front();
        lock.unlock();
        try {
            work();
        } catch (const std::exception& e) {
            logger("core")->error("work in pool {} failed: {}", name_, e.what());
        } catch (...) {
            logger("core")->error("work in pool {} failed", name_);
        }
        work = nullptr;  // what it holds goes before the lock is taken again
        lock.lock();
    }
    // Hand this thread's own object to whoever joins next.
    auto self = running_.find(std::this_thread::get_id());
    exited_.push_back(std::move(self->second));
    running_.erase(self);
    wake_.notify_all();
}

}  // namespace ipybox::core
