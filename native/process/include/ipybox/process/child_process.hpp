#pragma once
// A child process (see spawn.hpp for what it inherits: exactly what is asked for) whose merged
// stdout/stderr are delivered line by line to a callback (normally a logger; never our stdout).
//
// Shutdown ladder (terminate): SIGTERM to the child's process group, `grace` to exit, then
// SIGKILL to the group; once the leader is gone, SIGKILL to whatever is left in its group.
// Descendants that left the group (setsid) are the containment's to end (see containment.hpp).
//
// Thread-safety: all methods may be called from any thread. The output callback runs on the
// io_context given in spawn_options::io, or else on a reader thread owned by this object; once
// the destructor returns it runs no more. The destructor runs the shutdown ladder if the child
// still runs and reaps it; no zombies are left behind.
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "ipybox/process/environment.hpp"
#include "ipybox/process/exit_status.hpp"
#include "ipybox/process/spawn.hpp"

namespace boost::asio {
class io_context;
}

namespace ipybox::process {

struct spawn_options {
    std::filesystem::path executable;
    std::vector<std::string> arguments;
    environment_map environment;              // the complete environment of the child
    std::filesystem::path working_directory;  // required
    std::function<void(std::string_view line)> on_output_line;
    // stdin becomes a pipe whose only write end this process holds until the child_process is
    // destroyed: the child reads end-of-file when we let go of it or die, even through wrappers
    // (a sandbox) that hide our pid from it. Otherwise stdin is /dev/null.
    bool stdin_lifeline = false;
    // When >= 0 (and no lifeline), the child's stdin is this descriptor of ours (a socket to
    // talk to it over); the caller keeps it.
    int stdin_descriptor = -1;
    process_rlimits limits;
    std::vector<int> cgroup_procs;  // see spawn_request
    // The loop that reads the child's output (it must outlive the child_process); null: a
    // thread of the child_process's own.
    boost::asio::io_context* io = nullptr;
    kernel_interfaces interfaces;  // see spawn_request: for tests of older kernels' paths
};

// A process started for us by another one (a kernel forked by the kernel template, on Linux
// only), whose exit this process watches through its exit descriptor and whose exit status it
// reads while the process is a zombie (src/adopted_status.hpp): its parent reaps it only when
// `on_status_read` says so. The descriptor must have been opened while the process was known to
// be alive (so that the pid names it).
struct adopted_process {
    int pid = -1;
    unique_fd exit_fd;
    unique_fd lifeline;  // the write end of its stdin pipe (see spawn_options::stdin_lifeline)
    unique_fd output;    // the read end of its merged stdout/stderr
    std::function<void(std::string_view line)> on_output_line;
    boost::asio::io_context* io = nullptr;
    // Called once, after the exit status was read (or found unreadable): the parent may reap.
    std::function<void()> on_status_read;
};

class child_process {
  public:
    // Starts the child as the leader of a new session (and process group), so that signals can
    // reach it and everything it starts. Throws process_error if it cannot be started (the
    // message names the executable and the reason).
    static std::unique_ptr<child_process> spawn(spawn_options options);
    // Takes charge of a process another one started: everything below works as for a spawned
    // child (the shutdown ladder, output, exit status). Throws process_error without an exit
    // descriptor.
    static std::unique_ptr<child_process> adopt(adopted_process process);
    ~child_process();

    child_process(const child_process&) = delete;
    child_process& operator=(const child_process&) = delete;

    int pid() const { return pid_; }
    // A descriptor that becomes readable when the child exits (process::open_exit_fd's; where
    // the system gives none, a spawned child's is a pipe that a thread of this object closes
    // once waitid(2) says the child exited, without reaping it), or -1 for an adopted process
    // without one.
    int exit_fd() const { return exit_fd_.get(); }

    // The exit status if the child has exited (reaps it), otherwise nullopt. Non-blocking.
    std::optional<exit_status> poll_exit();
    // Waits up to `timeout` for the child to exit.
    std::optional<exit_status> wait_for(std::chrono::milliseconds timeout);

    // Sends `signal` to the child's whole process group. No-op once the child was reaped.
    void signal_group(int signal);
    // The shutdown ladder (see above). Returns the exit status.
    exit_status terminate(std::chrono::milliseconds grace);

    // The last few kilobytes the child wrote, for error messages. After the child exited, call
    // wait_output_end() first: its last lines may still be in the pipe.
    std::string output_tail() const;
    // Waits up to `timeout` until everything the child wrote has been read (end of its output).
    void wait_output_end(std::chrono::milliseconds timeout) const;

  private:
    child_process() = default;
    struct reader;

    int pid_ = -1;
    unique_fd exit_fd_;
    unique_fd lifeline_;  // write end of the child's stdin pipe (stdin_lifeline)
    std::optional<exit_status> status_;
    bool adopted_ = false;
    std::function<void()> on_status_read_;
    std::shared_ptr<reader> reader_;
    mutable std::mutex mutex_;
    // Where the system gives no exit descriptor: waits for the child's exit, then ends the pipe
    // exit_fd() reads; joined by the destructor, once the child is gone.
    std::thread exit_waiter_;
};

}  // namespace ipybox::process
