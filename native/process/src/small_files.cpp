#include "small_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ipybox::process::detail {

bool join_path(char* out, const char* directory, const char* name) {
    const std::size_t a = std::strlen(directory);
    const std::size_t b = std::strlen(name);
    if (a + 1 + b + 1 > path_capacity) return false;
    std::memcpy(out, directory, a);
    out[a] = '/';
    std::memcpy(out + a + 1, name, b + 1);
    return true;
}

long read_small_file(const char* path, char* buffer, std::size_t capacity) {
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    std::size_t used = 0;
    while (used + 1 < capacity) {
        const ssize_t got = ::read(fd, buffer + used, capacity - 1 - used);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        used += static_cast<std::size_t>(got);
    }
    ::close(fd);
    buffer[used] = '\0';
    return static_cast<long>(used);
}

}  // namespace ipybox::process::detail
