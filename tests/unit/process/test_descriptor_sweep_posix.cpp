// The POSIX descriptor sweep (Darwin, and the portable build on Linux) asks poll(2) which numbers
// are open, a batch at a time, up to the hard open-file limit: every descriptor below it is
// found, however sparse, and the ones below `first` are left alone.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

#include "ipybox/process/detail/descriptor_sweep.hpp"

using namespace ipybox::process;

namespace {

// In a forked child: descriptors without close-on-exec at `numbers` (each below the hard
// limit), then the sweep from 3. Exit code: 0 when each was acted on and stdin kept, else 1.
int swept(const std::vector<int>& numbers, detail::sweep_action action) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        // The soft limit up to the hard one, which bounds the numbers (as a kernel's would be).
        rlimit limit{};
        ::getrlimit(RLIMIT_NOFILE, &limit);
        limit.rlim_cur = limit.rlim_max;
        if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) ::_exit(4);
        const int opened = ::open("/dev/null", O_RDONLY);
        for (const int number : numbers) {
            if (number != opened && ::dup2(opened, number) != number) ::_exit(3);
            ::fcntl(number, F_SETFD, 0);  // not close-on-exec, whichever way it came
        }
        detail::sweep_descriptors_from(3, action, true);
        for (const int number : numbers) {
            const int flags = ::fcntl(number, F_GETFD);
            const bool done = action == detail::sweep_action::close
                                  ? flags < 0
                                  : flags >= 0 && (flags & FD_CLOEXEC) != 0;
            if (!done) ::_exit(1);
        }
        ::_exit(::fcntl(0, F_GETFD) >= 0 ? 0 : 1);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int hard_limit_or(int fallback) {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_max == RLIM_INFINITY) {
        return fallback;
    }
    return static_cast<int>(limit.rlim_max);
}

}  // namespace

TEST_CASE("the POSIX sweep finds sparse descriptors across poll batches, up to the hard limit") {
    const int last = std::min(hard_limit_or(4096), 4096) - 1;
    const std::vector<int> numbers = {3, 255, 256, 257, 1000, last};
    CHECK(swept(numbers, detail::sweep_action::mark_close_on_exec) == 0);
    CHECK(swept(numbers, detail::sweep_action::close) == 0);
}
