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
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ipybox/core/byte_sizes.hpp"

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

// A principal's caps (from its token; none without one).
struct owner_caps {
    std::optional<std::size_t> max_kernels;
    std::optional<std::uint64_t> memory_bytes;  // the sum of its kernels' memory limits
    std::optional<std::uint64_t> cpu_seconds;   // the sum of its kernels' CPU limits
};

// What one kernel takes of those sums: its own limits (absent: no limit, which no budget fits).
struct kernel_cost {
    std::optional<std::uint64_t> memory_bytes;
    std::optional<std::uint64_t> cpu_seconds;
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

    // Holds a place for a kernel of `owner` costing `cost` against the server's cap and the
    // owner's caps until add() or unreserve(), so that requests at once cannot pass a cap
    // together. Throws handle_limit_error.
    void reserve(const std::string& owner, const owner_caps& caps, const kernel_cost& cost) {
        std::lock_guard lock(mutex_);
        if (closed_) throw handle_limit_error("ipybox is shutting down");
        if (entries_.size() + pending_total_ >= caps_.max_kernels) {
            throw handle_limit_error("this server already runs its most kernels (--max-kernels " +
                                     std::to_string(caps_.max_kernels) +
                                     "): destroy_kernel one you no longer need, or try later");
        }
        const auto used = held_by(owner);
        if (caps.max_kernels && used.kernels >= *caps.max_kernels) {
            throw handle_limit_error("principal '" + owner + "' already has its most kernels (" +
                                     "max_kernels=" + std::to_string(*caps.max_kernels) +
                                     "): destroy_kernel one you no longer need");
        }
        check_budget(owner, "memory", caps.memory_bytes, cost.memory_bytes, used.memory_bytes);
        check_budget(owner, "cpu_seconds", caps.cpu_seconds, cost.cpu_seconds, used.cpu_seconds);
        ++pending_total_;
        pending_.push_back({owner, cost});
    }
    void unreserve(const std::string& owner, const kernel_cost& cost) {
        std::lock_guard lock(mutex_);
        release_pending(owner, cost);
    }

    // Adds a reserved kernel as a handle; returns its new id, or "" when take_all() came first
    // (the caller then disposes of the kernel).
    std::string add(const std::string& owner, const kernel_cost& cost,
                    std::shared_ptr<Kernel> kernel, details about, clock::time_point now) {
        std::lock_guard lock(mutex_);
        release_pending(owner, cost);
        if (closed_) return {};
        auto id = new_id_();
        while (entries_.contains(id) || id.empty()) id = new_id_();
        entries_.emplace(id,
                         entry{owner, std::move(kernel), std::move(about), now, 0, false, cost});
        return id;
    }

    // The implicit kernel of `owner`, made by `make` (outside the lock, once however many ask at
    // once; reserved against the caps first) when there is none. Marked busy as by acquire().
    // Throws handle_limit_error, or what `make` throws. Must not race take_all() (the caller
    // orders them: kernel_handles runs both on the server's loop).
    std::shared_ptr<Kernel> acquire_implicit(
        const std::string& owner, const owner_caps& caps, const kernel_cost& cost,
        clock::time_point now,
        const std::function<std::pair<std::shared_ptr<Kernel>, details>()>& make) {
        std::unique_lock creating(creating_[owner_mutex(owner)]);
        if (auto kernel = acquire(implicit_key(owner), owner, now)) return kernel;
        reserve(owner, caps, cost);
        std::pair<std::shared_ptr<Kernel>, details> made;
        try {
            made = make();
        } catch (...) {
            unreserve(owner, cost);
            throw;
        }
        std::lock_guard lock(mutex_);
        release_pending(owner, cost);
        auto& added = entries_[implicit_key(owner)];
        added = entry{owner, made.first, std::move(made.second), now, 1, true, cost};
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
        kernel_cost cost;
    };
    struct holding {
        std::size_t kernels = 0;
        std::uint64_t memory_bytes = 0;
        std::uint64_t cpu_seconds = 0;
    };
    struct reservation {
        std::string owner;
        kernel_cost cost;
    };

    // Keys of implicit kernels cannot collide with ids (which hold no control characters).
    static std::string implicit_key(const std::string& owner) { return "\x1f" + owner; }
    std::size_t owner_mutex(const std::string& owner) const {
        return std::hash<std::string>{}(owner) % creating_.size();
    }
    // What `owner`'s kernels and reservations take.
    holding held_by(const std::string& owner) const {
        holding held;
        const auto add = [&held](const kernel_cost& cost) {
            ++held.kernels;
            held.memory_bytes += cost.memory_bytes.value_or(0);
            held.cpu_seconds += cost.cpu_seconds.value_or(0);
        };
        for (const auto& [key, item] : entries_) {
            if (item.owner == owner) add(item.cost);
        }
        for (const auto& pending : pending_) {
            if (pending.owner == owner) add(pending.cost);
        }
        return held;
    }
    static void check_budget(const std::string& owner, const std::string& what,
                             std::optional<std::uint64_t> budget, std::optional<std::uint64_t> cost,
                             std::uint64_t used) {
        if (!budget) return;
        const auto amount = [&what](std::uint64_t value) {
            return what == "memory" ? core::describe_bytes(value) : std::to_string(value) + " s";
        };
        if (!cost) {
            throw handle_limit_error("principal '" + owner + "' has a " + what + " budget of " +
                                     amount(*budget) + ", and a kernel without a " + what +
                                     " limit cannot fit it: ask for one");
        }
        if (used + *cost > *budget) {
            throw handle_limit_error("principal '" + owner + "' has " +
                                     amount(*budget - std::min(*budget, used)) + " of its " + what +
                                     " budget (" + amount(*budget) +
                                     ") left, and this kernel's limit is " + amount(*cost) +
                                     ": destroy_kernel one, or ask for a lower limit");
        }
    }
    // Gives back a reservation of `owner` for `cost`.
    void release_pending(const std::string& owner, const kernel_cost& cost) {
        for (auto it = pending_.begin(); it != pending_.end(); ++it) {
            if (it->owner == owner && it->cost.memory_bytes == cost.memory_bytes &&
                it->cost.cpu_seconds == cost.cpu_seconds) {
                pending_.erase(it);
                if (pending_total_ > 0) --pending_total_;
                return;
            }
        }
    }

    const handle_caps caps_;
    const std::function<std::string()> new_id_;
    mutable std::mutex mutex_;
    std::map<std::string, entry> entries_;
    std::size_t pending_total_ = 0;
    std::vector<reservation> pending_;
    std::map<std::string, std::size_t> cells_;
    std::array<std::mutex, 8> creating_;
    bool closed_ = false;
};

}  // namespace ipybox::app
