#include "test_paths.hpp"

#include <cstdlib>

#include "ipybox/core/log.hpp"
#include "ipybox/core/random.hpp"

namespace ipybox::testing {

std::filesystem::path source_dir() {
    return IPYBOX_SOURCE_DIR;
}
std::filesystem::path binary_dir() {
    return IPYBOX_BINARY_DIR;
}
std::filesystem::path ipybox_executable() {
    return binary_dir() / "native" / "cli" / "ipybox";
}

std::filesystem::path fresh_directory(const std::string& hint) {
    auto dir = binary_dir() / "test-scratch" / (hint + "-" + core::random_hex(4));
    std::filesystem::create_directories(dir);
    return dir;
}

}  // namespace ipybox::testing

namespace {
// IPYBOX_TEST_LOG=debug shows ipybox's logs while a test runs.
const bool log_level_applied = [] {
    if (const char* level = std::getenv("IPYBOX_TEST_LOG")) ipybox::core::set_log_level(level);
    return true;
}();
}  // namespace
