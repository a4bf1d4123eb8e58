#include "ipybox/process/exit_status.hpp"

#include <sys/wait.h>

#include "signal_names.hpp"

namespace ipybox::process {

std::string exit_status::describe() const {
    if (signal != 0) {
        const char* name = detail::signal_abbreviation(signal);
        return "killed by signal " + std::to_string(signal) +
               (name != nullptr ? std::string(" (SIG") + name + ")" : std::string());
    }
    if (code < 0) return "ended (its exit status is unknown)";
    return "exited with code " + std::to_string(code);
}

exit_status exit_status::from_wait_status(int status) {
    exit_status out;
    if (WIFEXITED(status)) {
        out.code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        out.signal = WTERMSIG(status);
    }
    return out;
}

}  // namespace ipybox::process
