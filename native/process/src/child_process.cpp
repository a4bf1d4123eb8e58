#include "ipybox/process/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <cstring>
#include <thread>

#include "adopted_status.hpp"

namespace ipybox::process {
namespace {

namespace asio = boost::asio;

constexpr std::size_t tail_capacity = 8192;
constexpr std::size_t max_line = 64 * 1024;
constexpr std::size_t max_drain = 1024 * 1024;  // read after the owner stopped the reader

}  // namespace

// Reads the child's merged output and hands out complete lines: on the caller's io_context, or
// on a thread of its own that polls with a timeout (so that a grandchild holding the pipe open
// cannot block shutdown).
struct child_process::reader : std::enable_shared_from_this<reader> {
    int fd;
    std::function<void(std::string_view)> on_line;
    std::atomic<bool> stop{false};
    std::atomic<bool> ended{false};  // the pipe reached end of file
    mutable std::mutex tail_mutex;
    std::string tail;
    std::string pending;  // an incomplete line; the reading side's alone
    std::array<char, 4096> buffer{};
    std::thread thread;
    // On an io_context: the pipe as Asio sees it, and the lock that keeps a callback from
    // running once close() returned.
    std::unique_ptr<asio::posix::stream_descriptor> stream;
    std::mutex callback_mutex;

    reader(int f, std::function<void(std::string_view)> callback)
        : fd(f), on_line(std::move(callback)) {}

    void start(asio::io_context* io) {
        if (io == nullptr) {
            thread = std::thread([this] { run(); });
            return;
        }
        stream = std::make_unique<asio::posix::stream_descriptor>(*io, fd);
        read_more();
    }

    // Called by the owner once: afterwards no callback runs. On an io_context the pipe is closed
    // there (the last reference goes with the read still pending).
    void close() {
        if (!stream) {
            stop = true;
            if (thread.joinable()) thread.join();
            ::close(fd);
            return;
        }
        {
            std::lock_guard lock(callback_mutex);
            stop = true;
        }
        asio::post(stream->get_executor(), [self = shared_from_this()] {
            boost::system::error_code ignored;
            self->stream->close(ignored);
        });
    }

    void read_more() {
        stream->async_read_some(
            asio::buffer(buffer),
            [self = shared_from_this()](const boost::system::error_code& error, std::size_t got) {
                std::lock_guard lock(self->callback_mutex);
                if (self->stop) return;
                if (error) {
                    self->finish();
                    return;
                }
                self->consume(std::string_view(self->buffer.data(), got));
                self->read_more();
            });
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

    void consume(std::string_view chunk) {
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

    void finish() {
        if (!pending.empty()) emit(pending);
        pending.clear();
        ended = true;
    }

    void run() noexcept {
        bool at_end = false;
        while (!stop) {
            pollfd item{fd, POLLIN, 0};
            const int ready = ::poll(&item, 1, 100);
            if (ready <= 0) continue;
            if (!read_some()) {
                at_end = true;
                break;
            }
        }
        // Stopped (the owner is done with the child): what the child wrote before it ended may
        // still wait in the pipe, its last line among it (an interpreter probe's answer was lost
        // so). Take what is there without waiting; a grandchild that keeps writing gets at most
        // max_drain bytes more read.
        for (std::size_t drained = 0; !at_end && drained < max_drain; drained += buffer.size()) {
            pollfd item{fd, POLLIN, 0};
            if (::poll(&item, 1, 0) <= 0) break;
            at_end = !read_some();
        }
        finish();
    }

    // One read into the lines; false at the end of the pipe or on an error.
    bool read_some() {
        const ssize_t got = ::read(fd, buffer.data(), buffer.size());
        if (got <= 0) return false;
        consume(std::string_view(buffer.data(), static_cast<std::size_t>(got)));
        return true;
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
    } else if (options.stdin_descriptor < 0) {
        input = open_dev_null(false);
    }
    spawn_request request;
    request.executable = options.executable;
    request.arguments = std::move(options.arguments);
    request.environment = std::move(options.environment);
    request.working_directory = options.working_directory;
    const int stdin_fd =
        lifeline ? lifeline->read.get() : (input ? input.get() : options.stdin_descriptor);
    request.descriptors = {{0, stdin_fd}, {1, output.write.get()}, {2, output.write.get()}};
    request.limits = options.limits;
    request.cgroup_procs = options.cgroup_procs;
    request.interfaces = options.interfaces;
    auto spawned = process::spawn(request);
    self->pid_ = spawned.pid;
    self->exit_fd_ = std::move(spawned.exit_fd);
    if (!self->exit_fd_) {
        // No exit descriptor here (the portable build, Linux before 5.3): a pipe ended by a
        // thread that waits for the exit without reaping (WNOWAIT), so that the status stays
        // for poll_exit. A reap by poll_exit first ends the wait too (ECHILD).
        auto exited = make_pipe();
        self->exit_fd_ = std::move(exited.read);
        self->exit_waiter_ = std::thread([pid = self->pid_, end = exited.write.release()] {
            siginfo_t info{};
            while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) < 0 &&
                   errno == EINTR) {
            }
            ::close(end);
        });
    }
    if (lifeline) self->lifeline_ = std::move(lifeline->write);
    output.write.reset();  // the child's copy is the only writer now
    self->reader_ =
        std::make_shared<reader>(output.read.release(), std::move(options.on_output_line));
    self->reader_->start(options.io);
    return self;
}

std::unique_ptr<child_process> child_process::adopt(adopted_process process) {
    if (!process.exit_fd) {
        throw process_error("cannot watch process " + std::to_string(process.pid) +
                            " without an exit descriptor");
    }
    std::unique_ptr<child_process> self(new child_process());
    self->pid_ = process.pid;
    self->exit_fd_ = std::move(process.exit_fd);
    self->lifeline_ = std::move(process.lifeline);
    self->adopted_ = true;
    self->on_status_read_ = std::move(process.on_status_read);
    self->reader_ =
        std::make_shared<reader>(process.output.release(), std::move(process.on_output_line));
    self->reader_->start(process.io);
    return self;
}

child_process::~child_process() {
    if (!poll_exit()) terminate(std::chrono::milliseconds(500));
    if (reader_) reader_->close();
    if (exit_waiter_.joinable()) exit_waiter_.join();  // the child has exited or was reaped
}

std::optional<exit_status> child_process::poll_exit() {
    std::unique_lock lock(mutex_);
    if (status_) return status_;
    if (adopted_) {
        status_ = detail::adopted_exit_status(pid_, exit_fd_.get());
        if (!status_) return std::nullopt;
        const auto status = status_;
        auto release = std::move(on_status_read_);
        on_status_read_ = nullptr;
        lock.unlock();
        if (release) release();
        return status;
    }
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
        if (exit_fd_) {
            pollfd item{exit_fd_.get(), POLLIN, 0};
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
