#pragma once
// A file's modification time from its stat(2) record, in nanoseconds since the epoch: struct
// stat names the field st_mtim on Linux and st_mtimespec on Darwin (issue 39's platform layer).
#include <sys/stat.h>

#include <cstdint>

namespace ipybox::core {

std::uint64_t modified_ns(const struct stat& info);

}  // namespace ipybox::core
