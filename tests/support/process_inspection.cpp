#include "process_inspection.hpp"

#include <thread>

namespace ipybox::testing {

std::set<std::string> shared_sockets_and_pipes(int a, int b) {
    const auto ours = descriptor_targets(a);
    std::set<std::string> shared;
    for (const int pid : tree_of(b)) {
        for (const auto& target : descriptor_targets(pid)) {
            // Files are shared by name, not by descriptor, and every eventfd or epoll instance
            // reads "anon_inode:[...]" alike; sockets and pipes name their own object.
            const bool identifies =
                target.rfind("socket:", 0) == 0 || target.rfind("pipe:", 0) == 0;
            if (identifies && ours.count(target) != 0) shared.insert(target);
        }
    }
    return shared;
}

bool eventually_gone(int pid, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (process_alive(pid) && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return !process_alive(pid);
}

}  // namespace ipybox::testing
