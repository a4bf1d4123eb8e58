#pragma once
// Where tests find the source tree, the build tree and the binaries they drive.
#include <filesystem>

namespace ipybox::testing {

std::filesystem::path source_dir();
std::filesystem::path binary_dir();
// The `ipybox` executable of this build.
std::filesystem::path ipybox_executable();
// A fresh, empty directory under the build tree, unique per call; left behind for inspection.
std::filesystem::path fresh_directory(const std::string& hint);

}  // namespace ipybox::testing
