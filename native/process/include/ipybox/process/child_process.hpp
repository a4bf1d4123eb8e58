#pragma once
// A child process with an explicit environment, its own process group, and its merged
// stdout/stderr delivered line by line to a callback (normally a logger; never our stdout).
//
// Thread-safety: all methods may be called from any thread. The output callback runs on a
// reader thread owned by this object. The destructor kills the process group if it still runs
// and reaps the child; no zombies are left behind.
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ipybox/process/environment.hpp"

namespace ipybox::process {

struct spawn_options {
    std::filesystem::path executable;
    std::vector<std::string> arguments;
    environment_map environment;              // the complete environment of the child
    std::filesystem::path working_directory;  // empty: inherit ours
    std::function<void(std::string_view line)> on_output_line;
    // stdin becomes a pipe whose only write end this process holds until the child_process is
    // destroyed: the child reads end-of-file when we let go of it or die, even through wrappers
    // (a sandbox) that hide our pid from it. Otherwise stdin is /dev/null.
    bool stdin_lifeline = false;
};

struct exit_status {
    int code = -1;   // exit code, or -1 if killed by a signal
    int signal = 0;  // terminating signal, or 0
    // "exited with code 3", "killed by signal 9 (SIGKILL)".
    std::string describe() const;
};

class process_error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class child_process {
  public:
    // Starts the child as the leader of a new session (and process group), so that signals can
    // reach it and everything it starts. Throws process_error if it cannot be started (the
    // message names the executable and the reason).
    static std::unique_ptr<child_process> spawn(spawn_options options);
    ~child_process();

    child_process(const child_process&) = delete;
    child_process& operator=(const child_process&) = delete;

    int pid() const { return pid_; }
    // A pidfd that becomes readable when the child exits, or -1 where the kernel lacks pidfds.
    int exit_fd() const { return pidfd_; }

    // The exit status if the child has exited (reaps it), otherwise nullopt. Non-blocking.
    std::optional<exit_status> poll_exit();
    // Waits up to `timeout` for the child to exit.
    std::optional<exit_status> wait_for(std::chrono::milliseconds timeout);

    // Sends `signal` to the child's whole process group. No-op once the child was reaped.
    void signal_group(int signal);
    // SIGTERM to the group, up to `grace` to exit, then SIGKILL. Returns the exit status.
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
    int pidfd_ = -1;
    int lifeline_ = -1;  // write end of the child's stdin pipe (stdin_lifeline)
    std::optional<exit_status> status_;
    std::unique_ptr<reader> reader_;
    mutable std::mutex mutex_;
};

}  // namespace ipybox::process
