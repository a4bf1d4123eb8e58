#pragma once
// The bookkeeping of kernels as handles (kernel_handles.hpp), apart from the kernels themselves
// so that it can be tested with stand-ins: who owns which kernel, the caps on how many there are,
// how many cells each principal runs at once, and which kernels have been idle past their TTL.
// No I/O, no clock of its own (callers pass `now`), ids from the generator it is given.
//
// A kernel is either a handle (an id the client passes as kernel_id) or a principal's implicit
// kernel (used by calls without kernel_id). Every lookup names the principal: another principal's
// kernel is not found, exactly like an id that never existed, so ids cannot be probed.
//
// Thread-safety: every method may be called from any thread.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ipybox::app {

// A cap was reached; what() says which and what to do.
class handle_limit_error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct handle_caps {
    std::size_t max_kernels = 16;  // server-wide, implicit kernels included
    // A kernel idle this long (no call running or waiting) is stopped; its id is then unknown.
    std::chrono::milliseconds ttl{std::chrono::minutes(30)};
};

// What list_kernels shows of a kernel.
struct handle_listing {
    std::string id;  // "" for the principal's implicit kernel
    std::string workspace;
    bool sandboxed = false;
    std::chrono::milliseconds idle{0};
    std::chrono::milliseconds expires_in{0};
    std::size_t calls = 0;  // running or waiting
};

template <typename Kernel>
class handle_table {
  public:
    using clock = std::chrono::steady_clock;
    struct details {
        std::string workspace;
        bool sandboxed = false;
        bool expires = true;  // false: kept until the server stops (stdio's kernel)
    };

    handle_table(handle_caps caps, std::function<std::string()> new_id)
        : caps_(caps), new_id_(std::move(new_id)) {}

    const handle_caps& caps() const { return caps_; }

    // Holds a place for a kernel of `owner` against both caps until add() or unreserve(), so
    // that requests at once cannot pass a cap together. Throws handle_limit_error.
    void reserve(const std::string& owner, std::optional<std::size_t> owner_max) {
        std::lock_guard lock(mutex_);
        if (closed_) throw handle_limit_error("ipybox is shutting down");
        if (entries_.size() + pending_total_ >= caps_.max_kernels) {
            throw handle_limit_error("this server already runs its most kernels (--max-kernels " +
                                     std::to_string(caps_.max_kernels) +
                                     "): destroy_kernel one you no longer need, or try later");
        }
        if (owner_max && owned(owner) + pending_[owner] >= *owner_max) {
            throw handle_limit_error("principal '" + owner + "' already has its most kernels (" +
                                     "max_kernels=" + std::to_string(*owner_max) +
                                     "): destroy_kernel one you no longer need");
        }
        ++pending_total_;
        ++pending_[owner];
    }
    void unreserve(const std::string& owner) {
        std::lock_guard lock(mutex_);
        release_pending(owner);
    }

    // Adds a reserved kernel as a handle; returns its new id, or "" when take_all() came first
    // (the caller then disposes of the kernel).
    std::string add(const std::string& owner, std::shared_ptr<Kernel> kernel, details about,
                    clock::time_point now) {
        std::lock_guard lock(mutex_);
        release_pending(owner);
        if (closed_) return {};
        auto id = new_id_();
        while (entries_.contains(id) || id.empty()) id = new_id_();
        entries_.emplace(id, entry{owner, std::move(kernel), std::move(about), now, 0, false});
        return id;
    }

    // The implicit kernel of `owner`, made by `make` (outside the lock, once however many ask at
    // once; reserved against the caps first) when there is none. Marked busy as by acquire().
    // Throws handle_limit_error, or what `make` throws. Must not race take_all() (the caller
    // orders them: kernel_handles runs both on the server's loop).
    std::shared_ptr<Kernel> acquire_implicit(
        const std::string& owner, std::optional<std::size_t> owner_max, clock::time_point now,
        const std::function<std::pair<std::shared_ptr<Kernel>, details>()>& make) {
        std::unique_lock creating(creating_[owner_mutex(owner)]);
        if (auto kernel = acquire(implicit_key(owner), owner, now)) return kernel;
        reserve(owner, owner_max);
        std::pair<std::shared_ptr<Kernel>, details> made;
        try {
            made = make();
        } catch (...) {
            unreserve(owner);
            throw;
        }
        std::lock_guard lock(mutex_);
        release_pending(owner);
        auto& added = entries_[implicit_key(owner)];
        added = entry{owner, made.first, std::move(made.second), now, 1, true};
        return made.first;
    }

    // The kernel `id` of `owner`, marked busy until release(); null when there is none (unknown,
    // expired, removed, or another principal's). "" names the implicit kernel.
    std::shared_ptr<Kernel> acquire(const std::string& id, const std::string& owner,
                                    clock::time_point now) {
        std::lock_guard lock(mutex_);
        const auto it = entries_.find(id.empty() ? implicit_key(owner) : id);
        if (it == entries_.end() || it->second.owner != owner) return nullptr;
        ++it->second.calls;
        it->second.last_used = now;
        return it->second.kernel;
    }
    void release(const std::shared_ptr<Kernel>& kernel, clock::time_point now) {
        std::lock_guard lock(mutex_);
        for (auto& [key, held] : entries_) {
            if (held.kernel == kernel && held.calls > 0) {
                --held.calls;
                held.last_used = now;
                return;
            }
        }
    }

    // Takes handle `id` of `owner` out of the table; null as acquire() would be.
    std::shared_ptr<Kernel> remove(const std::string& id, const std::string& owner) {
        std::lock_guard lock(mutex_);
        const auto it = entries_.find(id);
        if (id.empty() || it == entries_.end() || it->second.owner != owner || it->second.implicit)
            return nullptr;
        auto kernel = std::move(it->second.kernel);
        entries_.erase(it);
        return kernel;
    }

    // Takes out every kernel that expires and has had no call for the TTL.
    std::vector<std::shared_ptr<Kernel>> take_expired(clock::time_point now) {
        std::lock_guard lock(mutex_);
        std::vector<std::shared_ptr<Kernel>> expired;
        for (auto it = entries_.begin(); it != entries_.end();) {
            const auto& held = it->second;
            if (held.about.expires && held.calls == 0 && now - held.last_used >= caps_.ttl) {
                expired.push_back(held.kernel);
                it = entries_.erase(it);
            } else {
                ++it;
            }
        }
        return expired;
    }

    // Takes out every kernel (shutdown); no kernel is added afterwards.
    std::vector<std::shared_ptr<Kernel>> take_all() {
        std::lock_guard lock(mutex_);
        closed_ = true;
        std::vector<std::shared_ptr<Kernel>> all;
        for (auto& [key, held] : entries_) all.push_back(std::move(held.kernel));
        entries_.clear();
        return all;
    }

    std::vector<handle_listing> list(const std::string& owner, clock::time_point now) const {
        std::lock_guard lock(mutex_);
        std::vector<handle_listing> listed;
        for (const auto& [key, held] : entries_) {
            if (held.owner != owner) continue;
            const auto idle = held.calls > 0 ? clock::duration::zero() : now - held.last_used;
            handle_listing item;
            item.id = held.implicit ? "" : key;
            item.workspace = held.about.workspace;
            item.sandboxed = held.about.sandboxed;
            item.idle = std::chrono::duration_cast<std::chrono::milliseconds>(idle);
            item.expires_in = held.about.expires
                                  ? std::max(std::chrono::milliseconds(0), caps_.ttl - item.idle)
                                  : std::chrono::milliseconds(0);
            item.calls = held.calls;
            listed.push_back(std::move(item));
        }
        return listed;
    }

    std::size_t size() const {
        std::lock_guard lock(mutex_);
        return entries_.size();
    }

    // Counts a cell of `owner` as running until end_cell(); throws handle_limit_error when it
    // already runs `owner_max` of them.
    void begin_cell(const std::string& owner, std::optional<std::size_t> owner_max) {
        std::lock_guard lock(mutex_);
        auto& running = cells_[owner];
        if (owner_max && running >= *owner_max) {
            throw handle_limit_error("principal '" + owner + "' already runs " +
                                     std::to_string(running) + " cell(s) at once " +
                                     "(max_concurrent_cells=" + std::to_string(*owner_max) +
                                     "): wait for one to finish");
        }
        ++running;
    }
    void end_cell(const std::string& owner) {
        std::lock_guard lock(mutex_);
        if (auto it = cells_.find(owner); it != cells_.end() && it->second > 0) {
            if (--it->second == 0) cells_.erase(it);
        }
    }

  private:
    struct entry {
        std::string owner;
        std::shared_ptr<Kernel> kernel;
        details about;
        clock::time_point last_used;
        std::size_t calls = 0;
        bool implicit = false;
    };

    // Keys of implicit kernels cannot collide with ids (which hold no control characters).
    static std::string implicit_key(const std::string& owner) { return "\x1f" + owner; }
    std::size_t owner_mutex(const std::string& owner) const {
        return std::hash<std::string>{}(owner) % creating_.size();
    }
    std::size_t owned(const std::string& owner) const {
        std::size_t count = 0;
        for (const auto& [key, held] : entries_) count += held.owner == owner ? 1 : 0;
        return count;
    }
    void release_pending(const std::string& owner) {
        if (pending_total_ > 0) --pending_total_;
        if (auto it = pending_.find(owner); it != pending_.end() && it->second > 0) {
            if (--it->second == 0) pending_.erase(it);
        }
    }

    const handle_caps caps_;
    const std::function<std::string()> new_id_;
    mutable std::mutex mutex_;
    std::map<std::string, entry> entries_;
    std::size_t pending_total_ = 0;
    std::map<std::string, std::size_t> pending_;
    std::map<std::string, std::size_t> cells_;
    std::array<std::mutex, 8> creating_;
    bool closed_ = false;
};

}  // namespace ipybox::app
