#include "../process_inspection.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

// Through /proc: Linux, and the portable build, which runs there.
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

long own_resident_kib() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind("VmRSS:", 0) == 0) {
            std::istringstream fields(line.substr(6));
            long kib = 0;
            fields >> kib;
            return kib;
        }
    }
    return 0;
}

}  // namespace ipybox::testing
