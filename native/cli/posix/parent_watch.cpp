#include "../parent_watch.hpp"

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <thread>

#include "ipybox/core/log.hpp"

namespace ipybox::cli {

bool end_with_parent(int parent_pid) {
    if (::getppid() != parent_pid) return false;
    try {
        std::thread([parent_pid] {
            // A process keeps its parent until the parent ends; then the system hands it to
            // init or a subreaper, and getppid() changes for good.
            while (::getppid() == parent_pid) {
                std::this_thread::sleep_for(std::chrono::milliseconds(200));
            }
            ::kill(::getpid(), SIGTERM);
        }).detach();
    } catch (const std::exception& e) {
        core::logger("cli")->warn("cannot watch the parent process: {}", e.what());
    }
    return true;
}

}  // namespace ipybox::cli
