#include "process_inspection.hpp"

#include <filesystem>
#include <fstream>
#include <thread>

namespace ipybox::testing {

std::multiset<std::string> descriptor_targets(int pid) {
    std::multiset<std::string> out;
    const auto dir = std::filesystem::path("/proc") / std::to_string(pid) / "fd";
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
        std::error_code ignored;
        out.insert(std::filesystem::read_symlink(entry.path(), ignored).string());
    }
    return out;
}

std::set<std::string> shared_sockets_and_pipes(int a, int b) {
    const auto ours = descriptor_targets(a);
    std::set<std::string> shared;
    for (const int pid : tree_of(b)) {
        for (const auto& target : descriptor_targets(pid)) {
            // Files are shared by name, not by descriptor, and every eventfd or epoll instance
            // reads "anon_inode:[...]" alike; sockets and pipes name their own inode.
            const bool identifies =
                target.rfind("socket:", 0) == 0 || target.rfind("pipe:", 0) == 0;
            if (identifies && ours.count(target) != 0) shared.insert(target);
        }
    }
    return shared;
}

std::vector<int> tree_of(int pid) {
    std::vector<int> out{pid};
    for (std::size_t i = 0; i < out.size(); ++i) {
        const auto tasks = std::filesystem::path("/proc") / std::to_string(out[i]) / "task";
        std::error_code error;
        for (const auto& task : std::filesystem::directory_iterator(tasks, error)) {
            std::ifstream in(task.path() / "children");
            for (int child = 0; in >> child;) out.push_back(child);
        }
    }
    return out;
}

bool process_alive(int pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(stat, text)) return false;
    const auto close = text.rfind(')');
    return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
}

bool eventually_gone(int pid, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (process_alive(pid) && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return !process_alive(pid);
}

}  // namespace ipybox::testing
