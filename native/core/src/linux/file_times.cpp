#include "ipybox/core/file_times.hpp"

namespace ipybox::core {

std::uint64_t modified_ns(const struct stat& info) {
    return static_cast<std::uint64_t>(info.st_mtim.tv_sec) * 1000000000ULL +
           static_cast<std::uint64_t>(info.st_mtim.tv_nsec);
}

}  // namespace ipybox::core
