#pragma once
// A kernel_session against the fake kernel process (tests/support/fake_kernel/), on a loop of the
// test's own: the options, and a record of the kernels the session started.
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "ipybox/core/private_directory.hpp"
#include "ipybox/kernel/kernel_session.hpp"
#include "running_loop.hpp"

namespace ipybox::testing {

using namespace std::chrono_literals;

// The folders of the kernels the session started, in start order (the spare's on its thread).
struct kernel_starts {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<std::filesystem::path> directories;

    std::size_t count() {
        std::lock_guard lock(mutex);
        return directories.size();
    }
    bool wait_for_count(std::size_t n) {
        std::unique_lock lock(mutex);
        return changed.wait_for(lock, 10s, [&] { return directories.size() >= n; });
    }
    std::filesystem::path at(std::size_t i) {
        std::lock_guard lock(mutex);
        return directories.at(i);
    }
};

struct fake_session_fixture {
    running_loop loop;  // declared first: it outlives the sessions and streams of a test
    ipybox::core::private_directory workspace{"ipybox-kt-"};
    kernel_starts starts;

    kernel::session_options options(bool keep_spare = false, const std::string& start_mode = "") {
        kernel::session_options o;
        o.launch.io = &loop.io;
        o.launch.python = IPYBOX_FAKE_KERNEL;
        o.launch.working_directory = workspace.path();
        o.launch.runtime_directory = workspace.path();
        if (!start_mode.empty()) o.launch.environment["IPYBOX_FAKE_KERNEL_START"] = start_mode;
        o.launch.wrap = [this](const std::filesystem::path& directory) {
            {
                std::lock_guard lock(starts.mutex);
                starts.directories.push_back(directory);
            }
            starts.changed.notify_all();
            return kernel::kernel_wrapping{};
        };
        o.start_timeout = 5s;
        o.interrupt_grace = 100ms;
        o.keep_spare = keep_spare;
        o.fork_kernels = false;  // the fake kernel is no Python that could be a template
        return o;
    }
};

}  // namespace ipybox::testing
