#pragma once
// The memory limit where nothing in the system holds it (private to the process module): Darwin
// has no control groups and does not enforce RLIMIT_AS. A thread sums the resident memory of
// each watched tree (its tagged processes, tree_kill.hpp) every `interval`, all trees from one
// pass over the process table (per 64 trees); a tree found above its limit is sent SIGKILL,
// every process of it, and its breach is recorded.
//
// What this does not cover, next to a cgroup's memory.max: a tree can exceed its limit between
// two looks (one interval); memory shared by several processes counts once per process; the
// kernel's own memory for the tree (page cache, sockets) does not count; and a process that left
// the tree (cleared its tag and its process group) is not watched.
//
// Thread-safety: every method may be called from any thread.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace ipybox::process::detail {

class memory_watchdog {
  public:
    explicit memory_watchdog(std::chrono::milliseconds interval);
    ~memory_watchdog();  // stops and joins the thread
    memory_watchdog(const memory_watchdog&) = delete;
    memory_watchdog& operator=(const memory_watchdog&) = delete;

    // Watches the tree tagged `tag` until unwatch(tag); `breached` turns true once it was ended
    // for going over `limit_bytes`.
    void watch(const std::string& tag, std::uint64_t limit_bytes,
               std::shared_ptr<std::atomic<bool>> breached);
    void unwatch(const std::string& tag);

  private:
    struct watched_tree {
        std::uint64_t limit_bytes = 0;
        std::shared_ptr<std::atomic<bool>> breached;
    };
    void run();
    void look_once();

    std::chrono::milliseconds interval_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::map<std::string, watched_tree> trees_;
    std::thread thread_;
};

}  // namespace ipybox::process::detail
