#include "ipybox/process/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <thread>

namespace ipybox::process {
namespace {

constexpr std::size_t tail_capacity = 8192;
constexpr std::size_t max_line = 64 * 1024;

}  // namespace

// Reads the child's merged output on its own thread and hands out complete lines.
struct child_process::reader {
    int fd;
    std::function<void(std::string_view)> on_line;
    std::atomic<bool> stop{false};
    std::atomic<bool> ended{false};  // the pipe reached end of file
    mutable std::mutex tail_mutex;
    std::string tail;
    std::thread thread;

    reader(int f, std::function<void(std::string_view)> callback)
        : fd(f), on_line(std::move(callback)) {
        thread = std::thread([this] { run(); });
    }
    ~reader() {
        stop = true;
        if (thread.joinable()) thread.join();
        ::close(fd);
    }

    void emit(std::string_view line) {
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (on_line) {
            try {
                on_line(line);
            } catch (...) {  // a logging callback must not kill the reader
            }
        }
    }

    void run() noexcept {
        std::string pending;
        char buffer[4096];
        // Poll with a timeout so that a grandchild holding the pipe open cannot block shutdown.
        while (!stop) {
            pollfd item{fd, POLLIN, 0};
            const int ready = ::poll(&item, 1, 100);
            if (ready <= 0) continue;
            const ssize_t got = ::read(fd, buffer, sizeof buffer);
            if (got <= 0) break;
            const std::string_view chunk(buffer, static_cast<std::size_t>(got));
            {
                std::lock_guard lock(tail_mutex);
                tail.append(chunk);
                if (tail.size() > 2 * tail_capacity) tail.erase(0, tail.size() - tail_capacity);
            }
            pending.append(chunk);
            std::size_t start = 0;
            for (std::size_t nl; (nl = pending.find('\n', start)) != std::string::npos;
                 start = nl + 1) {
                emit(std::string_view(pending).substr(start, nl - start));
            }
            pending.erase(0, start);
            if (pending.size() > max_line) {
                emit(pending);
                pending.clear();
            }
        }
        if (!pending.empty()) emit(pending);
        ended = true;
    }
};

std::unique_ptr<child_process> child_process::spawn(spawn_options options) {
    std::unique_ptr<child_process> self(new child_process());
    auto output = make_pipe();
    // The write end of the lifeline stays ours alone (close-on-exec): no other child we start
    // can hold the pipe open.
    std::optional<pipe_ends> lifeline;
    unique_fd input;
    if (options.stdin_lifeline) {
        lifeline = make_pipe();
    } else {
        input = open_dev_null(false);
    }
    spawn_request request;
    request.executable = options.executable;
    request.arguments = std::move(options.arguments);
    request.environment = std::move(options.environment);
    request.working_directory = options.working_directory;
    request.descriptors = {{0, lifeline ? lifeline->read.get() : input.get()},
                           {1, output.write.get()},
                           {2, output.write.get()}};
    request.limits = options.limits;
    request.cgroup_procs = options.cgroup_procs;
    auto spawned = process::spawn(request);
    self->pid_ = spawned.pid;
    self->pidfd_ = std::move(spawned.pidfd);
    if (lifeline) self->lifeline_ = std::move(lifeline->write);
    output.write.reset();  // the child's copy is the only writer now
    self->reader_ =
        std::make_unique<reader>(output.read.release(), std::move(options.on_output_line));
    return self;
}

child_process::~child_process() {
    if (!poll_exit()) terminate(std::chrono::milliseconds(500));
    reader_.reset();
}

std::optional<exit_status> child_process::poll_exit() {
    std::lock_guard lock(mutex_);
    if (status_) return status_;
    int status = 0;
    const pid_t reaped = ::waitpid(pid_, &status, WNOHANG);
    if (reaped == pid_) {
        status_ = exit_status::from_wait_status(status);
    } else if (reaped < 0 && errno == ECHILD) {
        status_ = exit_status{};  // reaped elsewhere; the status is unknown
    }
    return status_;
}

std::optional<exit_status> child_process::wait_for(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
        if (auto status = poll_exit()) return status;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return std::nullopt;
        if (pidfd_) {
            pollfd item{pidfd_.get(), POLLIN, 0};
            ::poll(&item, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
        } else {
            std::this_thread::sleep_for(std::min(left, std::chrono::milliseconds(5)));
        }
    }
}

void child_process::signal_group(int signal) {
    std::lock_guard lock(mutex_);
    if (status_) return;
    // The child leads its own process group (setsid), so its pid is the group id.
    process::signal_group(pid_, signal);
}

exit_status child_process::terminate(std::chrono::milliseconds grace) {
    signal_group(SIGTERM);
    if (auto status = wait_for(grace)) {
        // The leader is gone; whatever it started may still run in its group.
        ::kill(-pid_, SIGKILL);
        return *status;
    }
    signal_group(SIGKILL);
    if (auto status = wait_for(std::chrono::milliseconds(5000))) return *status;
    return exit_status{};
}

void child_process::wait_output_end(std::chrono::milliseconds timeout) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (reader_ && !reader_->ended && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
}

std::string child_process::output_tail() const {
    if (!reader_) return {};
    std::lock_guard lock(reader_->tail_mutex);
    return reader_->tail.size() > tail_capacity
               ? reader_->tail.substr(reader_->tail.size() - tail_capacity)
               : reader_->tail;
}

}  // namespace ipybox::process
