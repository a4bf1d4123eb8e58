#pragma once
// The state of a kernel_instance (private to the kernel module): its process, its connection,
// the executions waiting for replies and output, and the handlers the connection calls
// (kernel_instance_events.cpp); kernel_instance.cpp starts, drives and ends it.
//
// Thread-safety: the handlers run on the connection's loop; every field below `mutex` is
// guarded by it.
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "ipybox/core/log.hpp"
#include "ipybox/core/private_directory.hpp"
#include "ipybox/jupyter/kernel_connection.hpp"
#include "ipybox/kernel/kernel_instance.hpp"
#include "ipybox/process/child_process.hpp"
#include "path_stamps.hpp"

namespace ipybox::kernel {

struct kernel_instance::impl {
    kernel_launch launch;
    std::shared_ptr<spdlog::logger> log = core::logger("kernel");
    core::private_directory directory;
    jupyter::connection_info info;

    impl(const kernel_launch& l, const std::filesystem::path& base)
        : launch(l), directory("ipybox-k-", base) {}

    struct route {
        std::shared_ptr<pending_execution> execution;
        bool replied = false;
        bool idle = false;
    };

    mutable std::mutex mutex;
    std::condition_variable changed;
    std::map<std::string, route> routes;
    std::set<std::string> info_requests;
    bool info_replied = false;
    bool iopub_seen = false;
    bool is_ready = false;
    bool dead = false;
    bool abandoned = false;  // abandon_start(): nobody waits for this kernel any more
    std::string death_reason;
    bool stopped_by_limit = false;  // its memory limit ended it
    std::string hung_reason;        // set when the heartbeat was lost
    nlohmann::json kernel_info = nlohmann::json::object();
    // A forked kernel's own PYTHONPATH folders (its workspace's packages) as they were before
    // its fork: the template never watches them (it may be shared with other workspaces).
    detail::path_stamps own_paths;

    // Declared before the child: the tree is ended after the kernel itself.
    std::unique_ptr<process::containment> tree;
    std::mutex tree_mutex;
    // Declared before the connection: the connection (which watches the child's pidfd) must be
    // destroyed first.
    std::unique_ptr<process::child_process> child;
    std::unique_ptr<jupyter::kernel_connection> connection;

    void on_shell(jupyter::message&& msg);
    void on_iopub(jupyter::message&& msg);
    // A message the connection dropped unread (over its size limits): it may have been the
    // output of any execution under way, so each says that output was lost. On the shell channel
    // it can only be a reply to what ipybox asked, and the executions still waiting for theirs
    // will not get one: each ends now with the reason, instead of waiting out its timeout.
    void on_dropped(jupyter::channel which, const std::string& reason);
    void update_ready();  // mutex held
    // The kernel's process is there but answers nothing, not even the heartbeat, which ipykernel
    // serves from a thread of its own that needs no GIL: it is stopped (SIGSTOP), frozen or
    // wedged. Like a timeout that an interrupt cannot end, only a new kernel helps: this one is
    // stopped, and its death reports why.
    void on_heartbeat_lost();
    // After a lost heartbeat: SIGKILL to the tree, again every tree_kill_round_interval on the
    // connection's loop (call_after) while processes are found, at most `rounds_left` times.
    // The kill_all() of the containment's destructor stays the last word.
    void end_tree_in_rounds(int rounds_left);
    static constexpr int tree_kill_rounds = 200;
    static constexpr std::chrono::milliseconds tree_kill_round_interval{10};
    void on_exit();
    void request_kernel_info();
    std::string describe_start_failure(const std::string& what, bool exited) const;
};

}  // namespace ipybox::kernel
