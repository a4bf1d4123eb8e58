#include "memory_watchdog.hpp"

#include <signal.h>

#include <vector>

#include "process_table.hpp"
#include "tree_kill.hpp"

namespace ipybox::process::detail {

memory_watchdog::memory_watchdog(std::chrono::milliseconds interval)
    : interval_(interval), thread_([this] { run(); }) {}

memory_watchdog::~memory_watchdog() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void memory_watchdog::watch(const std::string& tag, std::uint64_t limit_bytes,
                            std::shared_ptr<std::atomic<bool>> breached) {
    std::lock_guard lock(mutex_);
    trees_[tag] = {limit_bytes, std::move(breached)};
}

void memory_watchdog::unwatch(const std::string& tag) {
    std::lock_guard lock(mutex_);
    trees_.erase(tag);
}

void memory_watchdog::run() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        wake_.wait_for(lock, interval_, [this] { return stopping_; });
        if (stopping_) break;
        lock.unlock();
        look_once();
        lock.lock();
    }
}

void memory_watchdog::look_once() {
    std::map<std::string, watched_tree> trees;
    {
        std::lock_guard lock(mutex_);
        trees = trees_;
    }
    for (const auto& [tag, tree] : trees) {
        std::vector<int> pids(1024);
        const int count = tagged_members(tag.c_str(), pids.data(), static_cast<int>(pids.size()));
        std::uint64_t resident = 0;
        for (int i = 0; i < count; ++i)
            resident += resident_bytes(pids[static_cast<std::size_t>(i)]);
        if (resident <= tree.limit_bytes) continue;
        tree.breached->store(true);
        end_tagged(tag.c_str());
    }
}

}  // namespace ipybox::process::detail
