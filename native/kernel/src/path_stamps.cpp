#include "path_stamps.hpp"

#include <sys/stat.h>

#include "ipybox/core/file_times.hpp"

namespace ipybox::kernel::detail {

path_stamp stamp_of(const std::string& path) {
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0) return std::nullopt;
    return std::pair{static_cast<std::uint64_t>(info.st_ino), core::modified_ns(info)};
}

path_stamps stamps_of(const std::vector<std::string>& paths) {
    path_stamps stamps;
    for (const auto& path : paths) stamps.emplace_back(path, stamp_of(path));
    return stamps;
}

bool changed(const path_stamps& stamps) {
    for (const auto& [path, stamp] : stamps) {
        if (stamp_of(path) != stamp) return true;
    }
    return false;
}

bool inside(const std::filesystem::path& entry, const std::filesystem::path& folder) {
    if (folder.empty()) return false;
    const auto relative = entry.lexically_normal().lexically_relative(folder.lexically_normal());
    return !relative.empty() && *relative.begin() != ".." && relative != ".";
}

std::vector<std::string> path_entries(const std::string& value) {
    std::vector<std::string> entries;
    std::size_t start = 0;
    while (start <= value.size()) {
        const auto end = std::min(value.find(':', start), value.size());
        if (end > start) entries.push_back(value.substr(start, end - start));
        start = end + 1;
    }
    return entries;
}

std::vector<std::string> own_path_entries(const kernel_launch& launch) {
    std::vector<std::string> own;
    if (const auto path = launch.environment.find("PYTHONPATH"); path != launch.environment.end()) {
        for (auto& entry : path_entries(path->second)) {
            if (inside(entry, launch.working_directory)) own.push_back(std::move(entry));
        }
    }
    return own;
}

}  // namespace ipybox::kernel::detail
