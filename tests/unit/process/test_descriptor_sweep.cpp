// The descriptor sweep without close_range (kernels before 5.11) finds descriptors by listing
// /proc/self/fd, so that a lowered RLIMIT_NOFILE hides none of them.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipybox/process/detail/descriptor_sweep.hpp"

using namespace ipybox::process;

namespace {

constexpr int lowered_limit = 64;
constexpr int above_it = 200;

// In a forked child: a descriptor at `above_it` without close-on-exec, RLIMIT_NOFILE (soft and
// hard) lowered below it, then `sweep` (none: nothing). Returns the descriptor's flags after
// (-1: closed), as the child's exit code (2: closed, 1: open without close-on-exec, 0: marked).
int descriptor_after(void (*sweep)()) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        const int opened = ::open("/dev/null", O_RDONLY);
        if (::fcntl(opened, F_DUPFD, above_it) != above_it) ::_exit(3);
        const rlimit lowered{lowered_limit, lowered_limit};
        if (::setrlimit(RLIMIT_NOFILE, &lowered) != 0) ::_exit(4);
        if (sweep != nullptr) sweep();
        const int flags = ::fcntl(above_it, F_GETFD);
        ::_exit(flags < 0 ? 2 : (flags & FD_CLOEXEC) != 0 ? 0 : 1);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("a lowered open-file limit closes no descriptor above it (the control)") {
    CHECK(descriptor_after(nullptr) == 1);
}

TEST_CASE("without close_range, descriptors above a lowered open-file limit are still swept") {
    CHECK(descriptor_after([] {
              detail::sweep_descriptors_from(3, detail::sweep_action::mark_close_on_exec, false);
          }) == 0);
    CHECK(descriptor_after(
              [] { detail::sweep_descriptors_from(3, detail::sweep_action::close, false); }) == 2);
}

TEST_CASE("with close_range, descriptors above a lowered open-file limit are swept") {
    CHECK(descriptor_after([] {
              detail::sweep_descriptors_from(3, detail::sweep_action::mark_close_on_exec, true);
          }) == 0);
    CHECK(descriptor_after(
              [] { detail::sweep_descriptors_from(3, detail::sweep_action::close, true); }) == 2);
}
