#include "memory_watchdog.hpp"

#include <signal.h>

#include <algorithm>
#include <utility>
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
    std::vector<std::pair<std::string, watched_tree>> trees;
    {
        std::lock_guard lock(mutex_);
        trees.assign(trees_.begin(), trees_.end());
    }
    // One pass over the process table for up to max_scan_trees trees, not one per tree: the
    // table is every process of the user, each read through a system call (Darwin's sysctl).
    constexpr int per_tree = 1024;
    for (std::size_t first = 0; first < trees.size(); first += max_scan_trees) {
        const std::size_t last = std::min(trees.size(), first + max_scan_trees);
        std::vector<const char*> tags;
        for (std::size_t i = first; i < last; ++i) tags.push_back(trees[i].first.c_str());
        const auto capacity = per_tree * tags.size();
        std::vector<int> pids(capacity);
        std::vector<int> owners(capacity);
        const int count = tagged_members_of(tags.data(), static_cast<int>(tags.size()), per_tree,
                                            pids.data(), owners.data(), static_cast<int>(capacity));
        std::vector<std::uint64_t> resident(tags.size(), 0);
        for (int i = 0; i < count; ++i) {
            const auto at = static_cast<std::size_t>(i);
            resident[static_cast<std::size_t>(owners[at])] += resident_bytes(pids[at]);
        }
        for (std::size_t k = 0; k < tags.size(); ++k) {
            const auto& tree = trees[first + k].second;
            if (resident[k] <= tree.limit_bytes) continue;
            tree.breached->store(true);
            end_tagged(tags[k]);
        }
    }
}

}  // namespace ipybox::process::detail
