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

constexpr const char* template_bootstrap =
    "import sys\n"
    "if sys.path and sys.path[0] == '':\n"
    "    del sys.path[0]\n"
    "from ipybox_runtime.kernel_template import main\n"
    "main()\n";

}  // namespace

std::vector<std::string> template_command(const std::filesystem::path& python) {
    // Room for each child's own command line (forked_kernel.py, retitle): a kernel's is the
    // interpreter, the kernel's bootstrap and its connection file.
    return {python.string(), "-c", template_bootstrap, std::string(1024, '_')};
}

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

process::spawn_options kernel_spawn_options(const kernel_launch& launch,
                                            const kernel_wrapping& wrapping,
                                            const std::filesystem::path& kernel_directory,
                                            const std::filesystem::path& connection_file) {
    return program_spawn_options(launch, wrapping, kernel_directory,
                                 kernel_command(launch.python, connection_file));
}

process::spawn_options program_spawn_options(const kernel_launch& launch,
                                             const kernel_wrapping& wrapping,
                                             const std::filesystem::path& kernel_directory,
                                             std::vector<std::string> program) {
    process::spawn_options options;
    std::vector<std::string> command = wrapping.command_prefix;
    auto environment = launch.environment;
    for (const auto& [name, value] : wrapping.environment) environment[name] = value;
    auto& python_path = environment["PYTHONPATH"];
    python_path =
        launch.runtime_directory.string() + (python_path.empty() ? "" : ":" + python_path);
    environment["IPYBOX_WORKSPACE"] = launch.working_directory.string();
    environment["IPYBOX_LIFELINE"] = "stdin";  // see kernel_main.py: the kernel exits when we do
    if (wrapping.wrapper_environment) {
        // `. file` sets the kernel's variables inside the wrapper, then the kernel replaces the
        // shell. A missing or unreadable file stops the shell: no kernel without its settings.
        const auto environment_file = kernel_directory / "kernel.env";
        write_environment_file(environment_file, environment);
        for (const char* arg : {"/bin/sh", "-c", ". \"$0\" && exec \"$@\""}) {
            command.emplace_back(arg);
        }
        command.push_back(environment_file.string());
        options.environment = *wrapping.wrapper_environment;
    } else {
        options.environment = std::move(environment);
    }
    for (auto& arg : program) command.push_back(std::move(arg));
    options.executable = command.front();
    options.arguments.assign(command.begin() + 1, command.end());
    options.working_directory = launch.working_directory;
    options.stdin_lifeline = true;
    return options;
}

}  // namespace ipybox::kernel::detail
