#pragma once
// The state of the folders a kernel imports from (private to the kernel module), to tell when a
// package was installed or removed there since a template did its imports or a kernel was
// forked: each folder's inode and modification time, or nullopt when it is missing.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ipybox/kernel/kernel_instance.hpp"

namespace ipybox::kernel::detail {

using path_stamp = std::optional<std::pair<std::uint64_t, std::uint64_t>>;
using path_stamps = std::vector<std::pair<std::string, path_stamp>>;

path_stamp stamp_of(const std::string& path);  // a few stat()s: cheap enough per start
path_stamps stamps_of(const std::vector<std::string>& paths);
// True once a folder of `stamps` is not as it was.
bool changed(const path_stamps& stamps);

// The non-empty entries of a PYTHONPATH value, in order.
std::vector<std::string> path_entries(const std::string& value);
// True for `entry` strictly inside `folder` (lexically, after normalising both).
bool inside(const std::filesystem::path& entry, const std::filesystem::path& folder);
// The entries of the launch's PYTHONPATH inside its working directory: the workspace's own
// packages, which a template shared by other workspaces' kernels never imports from.
std::vector<std::string> own_path_entries(const kernel_launch& launch);

}  // namespace ipybox::kernel::detail
