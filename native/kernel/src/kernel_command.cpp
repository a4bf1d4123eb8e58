#include "kernel_command.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace ipybox::kernel::detail {
namespace {

bool portable_name(const std::string& name) {
    if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
    for (const char c : name) {
        const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (!letter && c != '_' && !(c >= '0' && c <= '9')) return false;
    }
    return true;
}

constexpr const char* bootstrap =
    "import sys\n"
    "if sys.path and sys.path[0] == '':\n"
    "    del sys.path[0]\n"
    "from ipybox_runtime.kernel_main import main\n"
    "main(sys.argv[1:])\n";

}  // namespace

std::vector<std::string> kernel_command(const std::filesystem::path& python,
                                        const std::filesystem::path& connection_file) {
    return {python.string(), "-c", bootstrap, "-f", connection_file.string()};
}

std::string shell_quoted(const std::string& value) {
    std::string out = "'";
    for (const char c : value) {
        if (c == '\'') {
            out += "'\\''";
        } else {
            out += c;
        }
    }
    return out + "'";
}

void write_environment_file(const std::filesystem::path& file,
                            const process::environment_map& environment) {
    std::string text;
    for (const auto& [name, value] : environment) {
        if (!portable_name(name)) {
            throw std::invalid_argument(
                "the kernel environment variable '" + name +
                "' cannot be passed into the sandbox: a name must be letters, digits and "
                "underscores, not starting with a digit");
        }
        text += "export " + name + "=" + shell_quoted(value) + "\n";
    }
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        throw std::runtime_error("cannot write " + file.string() + ": " + std::strerror(errno));
    }
    std::size_t written = 0;
    while (written < text.size()) {
        const auto n = ::write(fd, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const int error = errno;
            ::close(fd);
            throw std::runtime_error("cannot write " + file.string() + ": " + std::strerror(error));
        }
        written += static_cast<std::size_t>(n);
    }
    ::close(fd);
}

}  // namespace ipybox::kernel::detail
