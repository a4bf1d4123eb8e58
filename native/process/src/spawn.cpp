#include "ipybox/process/spawn.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "ipybox/process/detail/descriptor_sweep.hpp"
#include "ipybox/process/exit_fd.hpp"
#include "spawn_platform.hpp"

namespace ipybox::process {
namespace {

// What failed in the child before exec; sent to the parent with errno.
enum class child_step : int { descriptors = 1, limits, cgroup, directory, exec };

const char* describe_step(child_step step) {
    switch (step) {
        case child_step::descriptors:
            return "cannot hand over its descriptors";
        case child_step::limits:
            return "cannot apply its resource limits";
        case child_step::cgroup:
            return "cannot join its control group";
        case child_step::directory:
            return "cannot enter its working directory";
        case child_step::exec:
            return "cannot execute it";
    }
    return "cannot start it";
}

struct child_report {
    int step;
    int error;
};

// The strings execve needs, built before fork: the child allocates nothing.
struct exec_image {
    std::vector<std::string> argument_storage;
    std::vector<std::string> environment_storage;
    std::vector<char*> argv;
    std::vector<char*> envp;

    explicit exec_image(const spawn_request& request) {
        argument_storage.push_back(request.executable.string());
        for (const auto& argument : request.arguments) argument_storage.push_back(argument);
        for (const auto& [name, value] : request.environment) {
            environment_storage.push_back(name + "=" + value);
        }
        for (auto& text : argument_storage) argv.push_back(text.data());
        argv.push_back(nullptr);
        for (auto& text : environment_storage) envp.push_back(text.data());
        envp.push_back(nullptr);
    }
};

[[noreturn]] void fail_in_child(int report_fd, child_step step) {
    const child_report report{static_cast<int>(step), errno};
    [[maybe_unused]] const auto ignored = ::write(report_fd, &report, sizeof report);
    ::_exit(127);
}

// Runs in the child between fork and exec: async-signal-safe calls only.
[[noreturn]] void become_child(const spawn_request& request, const exec_image& image,
                               const std::vector<descriptor_handover>& moved, int report_fd,
                               const char* directory) {
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    struct sigaction defaults {};
    defaults.sa_handler = SIG_DFL;
    for (int signal = 1; signal < NSIG; ++signal) {
        if (signal != SIGKILL && signal != SIGSTOP) ::sigaction(signal, &defaults, nullptr);
    }
    ::setsid();

    // First the control groups, through descriptors no dup2 below has yet replaced: nothing the
    // child does afterwards happens outside them.
    for (const int procs : request.cgroup_procs) {
        if (::write(procs, "0", 1) != 1) fail_in_child(report_fd, child_step::cgroup);
    }
    // Then the descriptors, before any limit: a lower RLIMIT_NOFILE would not close one of ours
    // numbered above it, and would hide it from a sweep that counts up to the limit. The
    // handed-over ones were copied above every target number (close-on-exec), so the dup2 calls
    // cannot overwrite one another's source; dup2 clears the flag on exactly the targets.
    detail::sweep_descriptors_from(3, detail::sweep_action::mark_close_on_exec,
                                   request.interfaces.bulk_close);
    for (const auto& handover : moved) {
        if (::dup2(handover.parent_fd, handover.child_fd) < 0) {
            fail_in_child(report_fd, child_step::descriptors);
        }
    }
    if (!detail::apply_limits(request.limits)) fail_in_child(report_fd, child_step::limits);
    if (::chdir(directory) != 0) fail_in_child(report_fd, child_step::directory);
    ::execve(image.argv[0], image.argv.data(), image.envp.data());
    fail_in_child(report_fd, child_step::exec);
}

}  // namespace

bool detail::set_limit(int resource, const std::optional<std::uint64_t>& value) {
    if (!value) return true;
    const rlimit limit{static_cast<rlim_t>(*value), static_cast<rlim_t>(*value)};
    return ::setrlimit(resource, &limit) == 0;
}

void unique_fd::reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
}

pipe_ends make_pipe() {
    int ends[2] = {-1, -1};
    if (!detail::open_pipe(ends)) {
        throw process_error(std::string("cannot create a pipe: ") + std::strerror(errno));
    }
    return {unique_fd(ends[0]), unique_fd(ends[1])};
}

unique_fd open_dev_null(bool for_writing) {
    const int fd = ::open("/dev/null", (for_writing ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
    if (fd < 0) throw process_error(std::string("cannot open /dev/null: ") + std::strerror(errno));
    return unique_fd(fd);
}

spawned_process spawn(const spawn_request& request) {
    const auto name = request.executable.string();
    const auto fail = [&](const std::string& why) {
        return process_error("cannot start " + name + ": " + why);
    };
    if (request.working_directory.empty()) throw fail("no working directory was given");
    for (const int standard : {0, 1, 2}) {
        const bool given = std::any_of(request.descriptors.begin(), request.descriptors.end(),
                                       [&](const auto& d) { return d.child_fd == standard; });
        if (!given) throw fail("descriptor " + std::to_string(standard) + " was not given");
    }
    const exec_image image(request);
    const auto directory = request.working_directory.string();

    // Copies of the sources above every target number, owned here until the fork is done.
    int highest_target = 2;
    for (const auto& d : request.descriptors) highest_target = std::max(highest_target, d.child_fd);
    std::vector<unique_fd> copies;
    std::vector<descriptor_handover> moved;
    for (const auto& d : request.descriptors) {
        const int copy = ::fcntl(d.parent_fd, F_DUPFD_CLOEXEC, highest_target + 1);
        if (copy < 0) {
            throw fail(std::string(describe_step(child_step::descriptors)) + " (descriptor " +
                       std::to_string(d.parent_fd) + ": " + std::strerror(errno) + ")");
        }
        copies.emplace_back(copy);
        moved.push_back({d.child_fd, copy});
    }
    auto report = make_pipe();
    // Above the targets too, so that no dup2 in the child replaces it.
    unique_fd report_write(::fcntl(report.write.get(), F_DUPFD_CLOEXEC, highest_target + 1));
    if (!report_write) throw fail(std::string("cannot create a pipe: ") + std::strerror(errno));
    report.write.reset();

    const pid_t pid = ::fork();
    if (pid < 0) throw fail(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) become_child(request, image, moved, report_write.get(), directory.c_str());

    report_write.reset();
    copies.clear();
    child_report failure{};
    ssize_t got = 0;
    do {
        got = ::read(report.read.get(), &failure, sizeof failure);
    } while (got < 0 && errno == EINTR);
    if (got == static_cast<ssize_t>(sizeof failure)) {
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        throw fail(std::string(describe_step(static_cast<child_step>(failure.step))) + " (" +
                   std::strerror(failure.error) + ")");
    }
    spawned_process spawned;
    spawned.pid = pid;
    if (request.interfaces.exit_descriptor) spawned.exit_fd = open_exit_fd(pid);
    return spawned;
}

void signal_group(pid_t pid, int signal) {
    if (pid <= 0) return;
    if (::kill(-pid, signal) != 0) ::kill(pid, signal);
}

}  // namespace ipybox::process
