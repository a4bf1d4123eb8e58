#include "child_spawn.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/process/args.hpp>
#include <boost/process/child.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/extend.hpp>
#include <boost/process/io.hpp>
#include <boost/process/start_dir.hpp>
#include <csignal>
#include <cstring>

namespace ipybox::mcp::transport::detail {
namespace {

namespace bp = boost::process;

// Runs in the child between fork and exec: only async-signal-safe calls.
struct child_setup : bp::extend::handler {
    template <class Executor>
    void on_exec_setup(Executor& /*executor*/) const {
        ::setpgid(0, 0);
        struct sigaction defaults {};
        defaults.sa_handler = SIG_DFL;
        ::sigaction(SIGPIPE, &defaults, nullptr);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        // Mark everything above stdio close-on-exec (not closed: Boost's exec-error pipe must
        // survive until exec). Falls back to a loop on kernels without CLOSE_RANGE_CLOEXEC.
        if (::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
            const long limit = ::sysconf(_SC_OPEN_MAX);
            const int last = limit > 0 && limit < 65536 ? static_cast<int>(limit) : 65536;
            for (int fd = 3; fd < last; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
        }
    }
};

// Hands execve exactly our environment. (Boost.Process 1.74's environment class reads past the
// end of short entries when looking names up, so we bypass it.)
struct explicit_environment : bp::extend::handler {
    explicit explicit_environment(const environment_map& environment) {
        for (const auto& [name, value] : environment) entries.push_back(name + "=" + value);
    }
    template <class Executor>
    void on_setup(Executor& executor) const {
        pointers.clear();
        for (const auto& entry : entries) pointers.push_back(const_cast<char*>(entry.c_str()));
        pointers.push_back(nullptr);
        executor.env = pointers.data();
    }
    std::vector<std::string> entries;
    mutable std::vector<char*> pointers;
};

void set_cloexec(int fd) {
    if (fd >= 0) ::fcntl(fd, F_SETFD, ::fcntl(fd, F_GETFD) | FD_CLOEXEC);
}

void set_cloexec(bp::async_pipe& pipe) {
    set_cloexec(pipe.native_source());
    set_cloexec(pipe.native_sink());
}

}  // namespace

spawned_child spawn_child(boost::asio::io_context& io, const std::filesystem::path& executable,
                          const std::vector<std::string>& args, const environment_map& environment,
                          const std::optional<std::filesystem::path>& cwd,
                          const std::string& label) {
    spawned_child result;
    try {
        result.stdin_pipe = std::make_unique<bp::async_pipe>(io);
        result.stdout_pipe = std::make_unique<bp::async_pipe>(io);
        result.stderr_pipe = std::make_unique<bp::async_pipe>(io);
        // The child's copies become stdio through dup2, which clears the flag; our ends must not
        // leak into children that other threads spawn.
        set_cloexec(*result.stdin_pipe);
        set_cloexec(*result.stdout_pipe);
        set_cloexec(*result.stderr_pipe);

        const std::string directory = cwd ? cwd->string() : std::string(".");
        bp::child child(
            bp::exe = executable.string(), bp::args = args, explicit_environment(environment),
            bp::std_in<*result.stdin_pipe, bp::std_out> * result.stdout_pipe,
            bp::std_err > *result.stderr_pipe, bp::start_dir = directory, child_setup{});
        result.pid = child.id();
        child.detach();  // we reap it ourselves (pidfd or polling), not Boost
    } catch (const std::system_error& error) {
        throw transport_error("cannot start MCP server " + label + " (" + executable.string() +
                              "): " + error.what());
    }
    return result;
}

void signal_child(int pid, int signal) {
    if (pid <= 0) return;
    if (::kill(-pid, signal) != 0) ::kill(pid, signal);
}

std::string describe_wait_status(int status) {
    if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) {
        const int signal = WTERMSIG(status);
        const char* name = ::strsignal(signal);
        return "was killed by signal " + std::to_string(signal) +
               (name != nullptr ? std::string(" (") + name + ")" : std::string());
    }
    return "ended with wait status " + std::to_string(status);
}

}  // namespace ipybox::mcp::transport::detail
