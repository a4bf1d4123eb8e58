#pragma once
// How a child process ended, in one wording for every child ipybox runs: "exited with code 3",
// "killed by signal 9 (SIGKILL)".
#include <string>

namespace ipybox::process {

struct exit_status {
    int code = -1;   // exit code, or -1 if killed by a signal (or unknown)
    int signal = 0;  // terminating signal, or 0
    std::string describe() const;
    // From a waitpid(2) status.
    static exit_status from_wait_status(int status);
};

}  // namespace ipybox::process
